package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// runBot runs `statusbot bot` with env and returns its exit code and
// standard error.
func runBot(t *testing.T, env ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.StatusbotBinary(t), "bot")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "HEALTH_ADDR=127.0.0.1:0"}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// A token saved with Windows line endings stops start-up at once, with
// the cause named and the token not shown.
func TestTokenWithCarriageReturnRejectedAtStart(t *testing.T) {
	code, out := runBot(t, "TELEGRAM_BOT_TOKEN=123456:AAsecretPART_x\r", "MONGODB_URI=mongodb://127.0.0.1:1")
	if code != 2 || !strings.Contains(out, "TELEGRAM_BOT_TOKEN has a space or line break around it: a carriage return") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if strings.Contains(out, "AAsecretPART") {
		t.Fatalf("token shown: %s", out)
	}
}

// A token Telegram rejects ends start-up with an error naming the setting.
func TestRejectedTokenNamedAtStart(t *testing.T) {
	tg := fakes.NewTelegram("123456:AAright_token")
	defer tg.Close()
	code, out := runBot(t, "TELEGRAM_BOT_TOKEN=123456:AAwrongSECRET", "TELEGRAM_API_URL="+tg.URL(),
		"MONGODB_URI="+testenv.MongoURI(t), "MONGODB_DATABASE="+testenv.DatabaseName(t))
	if code != 1 || !strings.Contains(out, "Telegram rejected TELEGRAM_BOT_TOKEN") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if strings.Contains(out, "AAwrongSECRET") {
		t.Fatalf("token shown: %s", out)
	}
}
