package commands_test

import (
	"testing"

	"github.com/openai-status-bot/statusbot/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
