package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// child is a process make run starts and watches.
type child struct {
	name string // "Temporal dev server"
	argv []string
	env  func() []string // read at start; nil: make run's own
	log  string          // file for its output; "" sends it to the terminal
	// ready returns once the child serves, or an error; nil: ready once
	// started. It must return when ctx ends.
	ready func(ctx context.Context) error
}

type running struct {
	child
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done
}

// supervisor starts children in order and stops all of them together.
type supervisor struct {
	out     io.Writer
	grace   time.Duration   // SIGTERM to SIGKILL
	force   <-chan struct{} // a second Ctrl-C: kill without waiting
	started []*running
	exited  chan *running
}

// supervise starts the children in order, each once the one before is
// ready, and watches every one: the first exit of any, or ctx ending
// (Ctrl-C, SIGTERM), stops them all, at any moment of start-up too.
// Nothing starts after ctx has ended. It returns nil when ctx ended and an
// error naming the child that exited otherwise (said before the others are
// stopped).
func (s *supervisor) supervise(ctx context.Context, children []child) error {
	err := s.startAndWatch(ctx, children)
	if err != nil {
		fmt.Fprintln(s.out, "make run:", err)
	}
	s.stopAll()
	return err
}

func (s *supervisor) startAndWatch(ctx context.Context, children []child) error {
	s.exited = make(chan *running, len(children))
	for _, c := range children {
		if ctx.Err() != nil {
			return nil
		}
		r, err := s.start(c)
		if err != nil {
			return err
		}
		if err := s.awaitReady(ctx, r); err != nil || ctx.Err() != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case r := <-s.exited:
		return r.exitError()
	}
}

func (s *supervisor) start(c child) (*running, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	if c.env != nil {
		cmd.Env = c.env()
	}
	// Its own process group: Ctrl-C in the terminal reaches make run only,
	// which stops the children in order. Pdeathsig: should make run itself
	// be killed, the children do not outlive it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if c.log != "" {
		f, err := os.Create(c.log)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name, err)
	}
	r := &running{child: c, cmd: cmd, done: make(chan struct{})}
	s.started = append(s.started, r)
	go func() {
		r.err = cmd.Wait()
		close(r.done)
		s.exited <- r
	}()
	return r, nil
}

// awaitReady waits for r to serve while watching every started child.
func (s *supervisor) awaitReady(ctx context.Context, r *running) error {
	if r.ready == nil {
		return nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan error, 1)
	go func() { ready <- r.ready(rctx) }()
	select {
	case <-ctx.Done():
		return nil
	case exited := <-s.exited:
		return exited.exitError()
	case err := <-ready:
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("%s: %w%s", r.name, err, r.logTail())
		}
		return nil
	}
}

// stopAll stops the children, the last started first (the bot before the
// stores it writes to): SIGTERM to its process group, SIGKILL after the
// grace period or at once on a second Ctrl-C.
func (s *supervisor) stopAll() {
	if len(s.started) == 0 {
		return
	}
	fmt.Fprintln(s.out, "Stopping...")
	for i := len(s.started) - 1; i >= 0; i-- {
		r := s.started[i]
		select {
		case <-r.done:
			continue
		default:
		}
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(s.grace):
			fmt.Fprintf(s.out, "%s did not stop within %s: killing it\n", r.name, s.grace)
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			<-r.done
		case <-s.force:
			for _, r := range s.started {
				_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			}
			<-r.done
		}
	}
	for _, r := range s.started {
		<-r.done
	}
	fmt.Fprintln(s.out, "Stopped.")
}

func (r *running) exitError() error {
	how := "exited"
	if r.err != nil {
		how = "exited: " + r.err.Error()
	}
	return fmt.Errorf("%s %s; stopping the others%s", r.name, how, r.logTail())
}

// logTail is the end of the child's log, for an error.
func (r *running) logTail() string {
	if r.log == "" {
		return ""
	}
	raw, err := os.ReadFile(r.log)
	if err != nil || len(raw) == 0 {
		return " (" + r.log + " is empty)"
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return "\nlast lines of " + r.log + ":\n  " + strings.Join(lines, "\n  ")
}

// pollUntil calls check every interval until it succeeds, ctx ends or
// within passes.
func pollUntil(ctx context.Context, within, interval time.Duration, what string, check func(context.Context) bool) error {
	deadline := time.Now().Add(within)
	for !check(ctx) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not ready after %s", what, within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
	return nil
}
