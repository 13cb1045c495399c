// Runs once, when the mongo-data volume is first initialised (the mongo
// image runs /docker-entrypoint-initdb.d/*.js as the root user).
//
// Creates the bot's own user with the least privilege it needs: readWrite
// on its database only. Its name, password and authentication database come
// from the same secret the bot connects with (MONGODB_URI_FILE), so the two
// can never disagree.
const fs = require('fs');
const { URL } = require('url');

// null when the URI is for another server (Atlas: mongodb+srv://): the
// bundled mongo is then unused, and must still start.
function appUserFromURI(raw, dbName) {
  const u = new URL(raw.trim());
  if (u.protocol === 'mongodb+srv:') {
    return null;
  }
  if (u.protocol !== 'mongodb:') {
    throw new Error('mongodb_uri must be a mongodb:// or mongodb+srv:// URI');
  }
  const user = decodeURIComponent(u.username);
  const pwd = decodeURIComponent(u.password);
  if (!user || !pwd) {
    throw new Error('mongodb_uri must hold a user name and a password');
  }
  // As the drivers do: authSource, else the URI's database, else admin.
  const path = decodeURIComponent(u.pathname.replace(/^\//, ''));
  const authDB = u.searchParams.get('authSource') || path || 'admin';
  return { user, pwd, authDB, dbName };
}

// Written first and removed last: a failure in between (a URI without a
// password, a bad secret file) leaves it in the volume. The image does not
// run init scripts again on a restart, so mongod would then serve a
// database without the bot's user; compose's health check fails while
// the marker is there (docs/deploy.md, "First start").
const MARKER = process.env.STATUSBOT_INIT_MARKER || '/data/db/statusbot-init-incomplete';

if (typeof db === 'undefined') {
  // Loaded by a test under Node, not by mongosh.
  module.exports = { appUserFromURI };
} else {
  fs.writeFileSync(MARKER, 'deploy/mongo/create-app-user.js did not finish: see `docker compose logs mongo`\n');
  const a = appUserFromURI(fs.readFileSync(process.env.MONGODB_URI_FILE, 'utf8'),
    process.env.MONGODB_DATABASE || 'openai-status-bot');
  if (a === null) {
    print('mongodb_uri is a mongodb+srv:// URI (another server, e.g. Atlas): no user created here');
  } else {
    db.getSiblingDB(a.authDB).createUser({
      user: a.user,
      pwd: a.pwd,
      roles: [{ role: 'readWrite', db: a.dbName }],
    });
    print(`created MongoDB user ${a.user} (readWrite on ${a.dbName}, authenticates against ${a.authDB})`);
  }
  fs.unlinkSync(MARKER);
}
