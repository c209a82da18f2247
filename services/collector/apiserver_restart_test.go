package collector_test

import (
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/collector"
)

// restartableKube starts an API server of its own whose certificates live
// in a fixed folder, so that it can be stopped and started again with the
// same address and credentials while etcd keeps its data.
func restartableKube(t *testing.T) (*envtest.Environment, client.Client) {
	t.Helper()
	bin, err := testenv.Tool("envtest/kube-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: filepath.Dir(bin), Scheme: testenv.Scheme(),
		ControlPlaneStopTimeout: 90 * time.Second}
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: t.TempDir()}
	env.ControlPlane.APIServer.Configure().Set("shutdown-watch-termination-grace-period", "1s")
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return env, c
}

func TestCollectorRelistsAfterAnAPIServerRestart(t *testing.T) {
	env, c := restartableKube(t)
	e := newEnv(t)
	restore := kube
	kube = &testenv.Kube{Config: env.Config, Client: c, Env: env}
	t.Cleanup(func() { kube = restore })
	namespace(t, "restart", nil)
	cfg := targetConfig(t, "restart", "deploys", 1, imageProfile("restart"), in("restart"))
	run := e.start(func(c *collector.Config) { c.Kube.Rest = env.Config })
	e.put(cfg)
	d1 := deployment("restart", "one", "one:1", 1, nil)
	create(t, d1)
	e.waitRows("rows before the restart", images(t, cfg, d1))

	api := env.ControlPlane.APIServer
	start := time.Now()
	if err := api.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped in %v", time.Since(start))
	if err := api.Start(); err != nil {
		t.Fatalf("restart kube-apiserver: %v", err)
	}
	t.Logf("restarted in %v", time.Since(start))
	remove(t, d1)
	d2 := deployment("restart", "two", "two:1", 1, nil)
	create(t, d2)
	e.waitRows("changes after the restart reach the bus", images(t, cfg, d2))
	select {
	case err := <-run.done:
		t.Fatalf("the collector exited after the API server restart: %v", err)
	default:
	}
}
