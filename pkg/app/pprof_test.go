package app_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv"
)

// get returns the status and body of a GET of url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test URL on loopback
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// sockets counts this process's open socket descriptors.
func sockets(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

func TestThePprofListenerServesProfilesWhenSetAndStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := app.DefaultProcess()
	p.PprofBindAddress = "127.0.0.1:0"
	addr, err := p.Start(ctx, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if addr == "" {
		t.Fatal("Start returned no address with --pprof-bind-address set")
	}
	for path, want := range map[string]string{
		"/debug/pprof/":                     "goroutine",
		"/debug/pprof/heap?debug=1":         "heap profile",
		"/debug/pprof/goroutine?debug=1":    "goroutine profile",
		"/debug/pprof/profile?seconds=1":    "", // a binary CPU profile
		"/debug/pprof/symbol":               "num_symbols",
		"/debug/pprof/trace?seconds=0.1000": "",
	} {
		code, body := get(t, "http://"+addr+path)
		if code != http.StatusOK || !strings.Contains(body, want) || body == "" {
			t.Errorf("GET %s = %d with %d bytes, want 200 holding %q", path, code, len(body), want)
		}
	}
	// The command line may hold credentials (--nats-url with a password).
	if code, _ := get(t, "http://"+addr+"/debug/pprof/cmdline"); code != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/cmdline = %d, want 404", code)
	}
	cancel()
	testenv.EventuallyTrue(t, 5*time.Second, "the listener to close", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	})
}

func TestNothingListensWithoutAPprofAddress(t *testing.T) {
	for _, addr := range []string{"", "0"} {
		t.Run("address "+strconv.Quote(addr), func(t *testing.T) {
			before := sockets(t)
			p := app.DefaultProcess()
			p.PprofBindAddress = addr
			got, err := p.Start(context.Background(), logr.Discard())
			if err != nil || got != "" {
				t.Fatalf("Start = %q, %v; want no listener", got, err)
			}
			if after := sockets(t); after != before {
				t.Errorf("open sockets went from %d to %d: something listens", before, after)
			}
		})
	}
}

func TestAnAddressInUseFailsTheStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	p := app.DefaultProcess()
	p.PprofBindAddress = l.Addr().String()
	if _, err := p.Start(context.Background(), logr.Discard()); err == nil {
		t.Fatal("Start on an address in use succeeded")
	}
}

func TestTheMetricsServerDoesNotServeProfiles(t *testing.T) {
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv := &app.Server{Addr: addr, Registry: prometheus.NewRegistry(), Log: logr.Discard()}
	go func() { done <- srv.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("metrics server: %v", err)
		}
	}()
	testenv.EventuallyTrue(t, 5*time.Second, "the metrics server", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz") //nolint:noctx // a test URL on loopback
		if err == nil {
			_ = resp.Body.Close()
		}
		return err == nil
	})
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap"} {
		if code, _ := get(t, "http://"+addr+path); code != http.StatusNotFound {
			t.Errorf("metrics server GET %s = %d, want 404", path, code)
		}
	}
}
