package testenv

import (
	"os"
	"testing"
)

// Main runs the package's tests, then stops the servers this package
// started. Call it from TestMain in every package that uses testenv:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Shutdown()
	os.Exit(code)
}

// Shutdown stops the dev server and FerretDB, if started.
func Shutdown() {
	if devServer != nil {
		_ = devServer.Stop()
	}
	if mongoCmd != nil && mongoCmd.Process != nil {
		_ = mongoCmd.Process.Kill()
		_, _ = mongoCmd.Process.Wait()
	}
}
