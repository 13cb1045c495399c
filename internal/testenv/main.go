package testenv

import (
	"os"
	"syscall"
	"testing"
	"time"
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
		// SIGTERM: devdb stops its PostgreSQL, if it runs one, and waits.
		_ = mongoCmd.Process.Signal(syscall.SIGTERM)
		exited := make(chan struct{})
		go func() { _, _ = mongoCmd.Process.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = mongoCmd.Process.Kill()
			<-exited
		}
		_ = os.RemoveAll(mongoDir)
	}
}
