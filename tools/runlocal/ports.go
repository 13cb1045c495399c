package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// port is an address make run is about to listen on, named by its use.
type port struct {
	use  string // "Temporal frontend"
	addr string // "127.0.0.1:7233"
}

// busyPorts tries each address and describes every one that is taken,
// with the process holding it when this user can see it. Another Temporal
// on 7233 would otherwise pass the health wait, and the bot would join it.
func busyPorts(ports []port) error {
	var busy []string
	for _, p := range ports {
		l, err := net.Listen("tcp", p.addr)
		if err == nil {
			l.Close()
			continue
		}
		line := fmt.Sprintf("  %s %s is in use", p.use, p.addr)
		if !errors.Is(err, syscall.EADDRINUSE) {
			line = fmt.Sprintf("  %s %s cannot be used: %v", p.use, p.addr, err)
		} else if who := holder(p.addr); who != "" {
			line += " by " + who
		}
		busy = append(busy, line)
	}
	if len(busy) == 0 {
		return nil
	}
	return fmt.Errorf("ports needed by make run are taken:\n%s\nStop what holds them, or move make run elsewhere (TEMPORAL_PORT, TEMPORAL_UI_PORT, DEVDB_ADDR, HEALTH_ADDR, METRICS_ADDR in .env)", strings.Join(busy, "\n"))
}

// holder names the process listening on addr's port ("pid 123
// (temporal)"), or "" when /proc does not tell (not Linux).
func holder(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	portNum, err := strconv.Atoi(p)
	if err != nil {
		return ""
	}
	inodes := listeningInodes(portNum)
	if len(inodes) == 0 {
		return ""
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range procs {
		link, err := os.Readlink(fd)
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
			pid := strings.Split(fd, "/")[2]
			return "pid " + pid + " (" + processName(pid) + ")"
		}
	}
	return "a process of another user"
}

// listeningInodes reads the sockets in LISTEN state on port from
// /proc/net/tcp and tcp6.
func listeningInodes(port int) map[string]bool {
	out := map[string]bool{}
	hexPort := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st ... inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], hexPort) {
				continue
			}
			out[fields[9]] = true
		}
		f.Close()
	}
	return out
}

// processName is the process's command name (/proc/PID/comm): its
// arguments are left out, they may hold a password.
func processName(pid string) string {
	raw, err := os.ReadFile("/proc/" + pid + "/comm")
	if err != nil || len(raw) == 0 {
		return "name not readable"
	}
	return strings.TrimSpace(string(raw))
}
