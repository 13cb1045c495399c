// Command devdb runs FerretDB v1 with its SQLite backend: the MongoDB-wire
// store used by `make run`, the tests and CI where no mongod can be installed.
//
// It prints the MongoDB URI on the first line of stdout (and writes it to
// -uri-file when given) so that callers can start it on a free port.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	dir := flag.String("dir", ".data/ferretdb", "directory for the SQLite files")
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on (port 0 picks a free one)")
	uriFile := flag.String("uri-file", "", "write the MongoDB URI to this file once listening")
	flag.Parse()

	abs, err := filepath.Abs(*dir)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		fail(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
		Logger:    logger,
	})
	if err != nil {
		fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	uri := f.MongoDBURI()
	fmt.Println(uri)
	if *uriFile != "" {
		if err := os.WriteFile(*uriFile, []byte(uri+"\n"), 0o644); err != nil {
			fail(err)
		}
	}
	if err := <-done; err != nil && ctx.Err() == nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "devdb:", err)
	os.Exit(1)
}
