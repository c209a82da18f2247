package testenv

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kollect.dev/kollect/api/v1alpha1"
)

// Kube is a real kube-apiserver and etcd started through envtest, with
// Kollect's CRDs from api/crds installed.
type Kube struct {
	Config *rest.Config
	// Client knows client-go's built-in types and every kollect.dev kind.
	Client client.Client
	Env    *envtest.Environment
}

// Scheme returns a scheme holding client-go's built-in types and Kollect's.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err) // static registration; cannot fail at run time
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// StartKube starts etcd and kube-apiserver with api/crds installed and
// stops them when the test ends. It fails the test (never skips) when the
// binaries are missing.
func StartKube(t testing.TB) *Kube {
	t.Helper()
	return startKube(t, nil, true)
}

// startKube starts the control plane for a test (newKube's flags and crds)
// and stops it when the test ends.
func startKube(t testing.TB, flags map[string]string, crds bool) *Kube {
	t.Helper()
	k, err := newKube("", flags, crds)
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Stop(); err != nil {
			t.Errorf("stop kube-apiserver: %v", err)
		}
	})
	return k
}

// NewKube starts etcd and kube-apiserver with api/crds installed; the
// caller owns Stop. TestMain functions and the demo use it.
func NewKube() (*Kube, error) { return newKube("", nil, true) }

// NewRestartableKube is NewKube with the API server's certificates in
// certDir, so that its APIServer can be stopped (or killed, then stopped)
// and started again with the same address and credentials while etcd keeps
// the cluster: the fault suite kills it.
func NewRestartableKube(certDir string) (*Kube, error) { return newKube(certDir, nil, true) }

// StartKubeWithFlags is StartKube with flags added to kube-apiserver's,
// for example an --admission-control-config-file that has it present a
// client certificate to webhooks.
func StartKubeWithFlags(t testing.TB, flags map[string]string) *Kube {
	t.Helper()
	return startKube(t, flags, true)
}

// StartBareKube is StartKube without Kollect's CRDs: a fresh cluster, for
// the tests of what installs them.
func StartBareKube(t testing.TB) *Kube {
	t.Helper()
	return startKube(t, nil, false)
}

// newKube starts the control plane, with flags added to kube-apiserver's
// and, when crds is set, Kollect's CRDs installed.
func newKube(certDir string, flags map[string]string, crds bool) (*Kube, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	apiserver, err := Tool("envtest/kube-apiserver")
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: filepath.Dir(apiserver),
		Scheme:                Scheme(),
		// The default (20s) is too short on a loaded 2-core machine.
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	if crds {
		env.CRDDirectoryPaths, env.ErrorIfCRDPathMissing = []string{filepath.Join(root, "api", "crds")}, true
	}
	if certDir != "" {
		env.ControlPlane.APIServer = &envtest.APIServer{CertDir: certDir}
		env.ControlPlane.APIServer.Configure().Set("shutdown-watch-termination-grace-period", "1s")
	}
	if len(flags) > 0 {
		if env.ControlPlane.APIServer == nil {
			env.ControlPlane.APIServer = &envtest.APIServer{}
		}
		for k, v := range flags {
			env.ControlPlane.APIServer.Configure().Set(k, v)
		}
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("envtest: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Kube{Config: cfg, Client: c, Env: env}, nil
}

// Stop stops kube-apiserver and etcd and removes their data.
func (k *Kube) Stop() error { return k.Env.Stop() }
