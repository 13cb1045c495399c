#!/usr/bin/env bash
# Creates the files compose.yml passes to the containers as secrets, in
# ./secrets (mode 700: only you can open the folder; the files inside are
# readable by the containers' users, which run under other IDs).
#
#   deploy/init-secrets.sh          asks for the bot token, generates the rest
#
# An existing file is never overwritten: the database passwords are fixed
# when the volumes are first created (see docs/deploy.md to change them).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=secrets
mkdir -p "$dir"
chmod 700 "$dir"
db=${MONGODB_DATABASE:-openai-status-bot}

random() { od -An -N24 -tx1 /dev/urandom | tr -d ' \n'; }

write() { # write NAME VALUE: create secrets/NAME unless it exists
  local f="$dir/$1"
  if [[ -s "$f" ]]; then
    echo "kept     $f"
    return
  fi
  (umask 022 && printf '%s\n' "$2" >"$f")
  echo "created  $f"
}

write temporal_db_password "$(random)"
write mongo_root_password "$(random)"
write mongodb_uri "mongodb://statusbot:$(random)@mongo:27017/$db?authSource=$db"

if [[ ! -s "$dir/telegram_bot_token" ]]; then
  token=${TELEGRAM_BOT_TOKEN:-}
  if [[ -z "$token" && -t 0 ]]; then
    read -rsp "Telegram bot token from @BotFather (input hidden): " token
    echo
  fi
  if [[ -z "$token" ]]; then
    echo "secrets/telegram_bot_token not created: run again and paste the token from @BotFather" >&2
    exit 1
  fi
  write telegram_bot_token "$token"
else
  echo "kept     $dir/telegram_bot_token"
fi
