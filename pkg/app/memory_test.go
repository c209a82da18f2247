package app_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/app"
)

// helperEnv makes the test binary act as a service process: it binds the
// Process flags, parses the arguments after "--", applies the memory limit
// and prints the runtime's limit as debug.SetMemoryLimit(-1) reads it.
const helperEnv = "KOLLECT_APP_TEST_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(helperProcess())
	}
	if os.Getenv(mainChildEnv) == "1" {
		mainChild()
	}
	os.Exit(m.Run())
}

func helperProcess() int {
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	p := app.DefaultProcess()
	fs := flag.NewFlagSet("helper", flag.ContinueOnError)
	p.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, _, err := p.ApplyMemoryLimit(); err != nil {
		fmt.Println("error:", err)
		return 0
	}
	fmt.Println(debug.SetMemoryLimit(-1))
	return 0
}

// runProcess runs the helper with env (on top of a clean environment for
// the variables under test) and args, and returns what it printed.
func runProcess(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--"}, args...)...) //nolint:gosec // G702: re-runs this test binary with the test's own flags
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOMEMLIMIT=") && !strings.HasPrefix(e, app.EnvMemoryLimit+"=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, append(env, helperEnv+"=1")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestTheMemoryLimitIsAppliedFromTheFlagTheEnvironmentOrGOMEMLIMIT(t *testing.T) {
	const mi = 1 << 20
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"nothing set leaves the runtime without a limit", nil, nil, strconv.FormatInt(math.MaxInt64, 10)},
		{"--memory-limit gives the runtime 85% of it", nil, []string{"--memory-limit=200Mi"}, strconv.Itoa(200 * mi * 85 / 100)},
		{"the container limit in the environment gives the runtime 85% of it",
			[]string{app.EnvMemoryLimit + "=" + strconv.Itoa(1024*mi)}, nil, strconv.Itoa(1024 * mi * 85 / 100)},
		{"--memory-limit wins over the environment",
			[]string{app.EnvMemoryLimit + "=" + strconv.Itoa(1024*mi)}, []string{"--memory-limit=100Mi"}, strconv.Itoa(100 * mi * 85 / 100)},
		{"--memory-limit-ratio sets the share", nil, []string{"--memory-limit=100Mi", "--memory-limit-ratio=0.5"}, strconv.Itoa(50 * mi)},
		{"GOMEMLIMIT wins over the flag and the environment",
			[]string{"GOMEMLIMIT=300MiB", app.EnvMemoryLimit + "=" + strconv.Itoa(1024*mi)}, []string{"--memory-limit=200Mi"},
			strconv.Itoa(300 * mi)},
		{"GOMEMLIMIT=off keeps the runtime without a limit whatever the flag",
			[]string{"GOMEMLIMIT=off"}, []string{"--memory-limit=200Mi"}, strconv.FormatInt(math.MaxInt64, 10)},
		{"a ratio above 1 is refused", nil, []string{"--memory-limit=100Mi", "--memory-limit-ratio=1.5"},
			"error: memory-limit-ratio 1.5: want a share in (0, 1]"},
		{"an unreadable environment limit is refused", []string{app.EnvMemoryLimit + "=lots"}, nil,
			`error: read $KOLLECT_MEMORY_LIMIT: parse memory quantity "lots"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runProcess(t, tc.env, tc.args...)
			if got != tc.want && (!strings.HasPrefix(tc.want, "error: ") || !strings.HasPrefix(got, tc.want)) {
				t.Errorf("limit = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestBytesParsesQuantitiesAndRefusesFractionsOfAByte(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"256Mi", 256 << 20, true},
		{"1G", 1e9, true},
		{"268435456", 268435456, true},
		{"0.5", 0, false},
		{"-1Mi", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var b app.Bytes
			err := b.Set(tc.in)
			if (err == nil) != tc.ok || int64(b) != tc.want {
				t.Errorf("Set(%q) = %d, %v; want %d, ok %v", tc.in, b, err, tc.want, tc.ok)
			}
		})
	}
}
