package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// A taken port is refused by its use, with the process holding it.
func TestBusyPortNamedWithHolder(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	free := freePort(t)
	err = busyPorts([]port{{"FerretDB (MongoDB)", free}, {"Temporal frontend", l.Addr().String()}})
	if err == nil {
		t.Fatal("busy port accepted")
	}
	want := fmt.Sprintf("Temporal frontend %s is in use by pid %d (runlocal.test)", l.Addr(), os.Getpid())
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), free) {
		t.Fatalf("%v\nwant %q", err, want)
	}
	if err := busyPorts([]port{{"FerretDB (MongoDB)", free}}); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
