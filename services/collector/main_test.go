package collector_test

import (
	"fmt"
	"os"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
)

// kube is one real API server shared by the package's tests; each test
// works in its own namespaces and selects only them.
var kube *testenv.Kube

func TestMain(m *testing.M) {
	k, err := testenv.NewKube()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start kube-apiserver:", err)
		os.Exit(1)
	}
	kube = k
	code := m.Run()
	if err := k.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop kube-apiserver:", err)
	}
	os.Exit(code)
}
