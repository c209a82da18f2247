package loadtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// pprofFlag gives service name a pprof listener when the run profiles
// (Config.Profile), remembering its port; nil otherwise.
func (r *run) pprofFlag(name string) ([]string, error) {
	if r.c.Profile <= 0 {
		return nil, nil
	}
	port, err := testenv.FreePort()
	if err != nil {
		return nil, err
	}
	r.pprof[name] = port
	return []string{"--pprof-bind-address=127.0.0.1:" + strconv.Itoa(port)}, nil
}

// profileSync takes a CPU profile of Config.Profile seconds from every
// service with a pprof listener, starting ProfileDelay into the initial
// sync, and writes each to <report>-<service>.pprof; it returns at once
// and reports on the run's output when the profiles are written.
func (r *run) profileSync(ctx context.Context) {
	if r.c.Profile <= 0 {
		return
	}
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.c.ProfileDelay):
		}
		var wg sync.WaitGroup
		for name, port := range r.pprof {
			wg.Go(func() {
				path := filepath.Join(r.c.OutDir, r.base()+"-"+name+".pprof")
				if err := fetchProfile(ctx, port, r.c.Profile, path); err != nil {
					r.step("profile of %s: %v", name, err)
				}
			})
		}
		wg.Wait()
		r.step("CPU profiles of %d services written next to the report", len(r.pprof))
	}()
}

// fetchProfile saves a CPU profile of d from the pprof listener on port.
func fetchProfile(ctx context.Context, port int, d time.Duration, path string) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", port, int(d.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
