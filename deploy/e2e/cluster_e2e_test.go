//go:build e2ecluster

package e2e_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/deploy/e2e"
	"kollect.dev/kollect/pkg/testenv"
)

var (
	reportPath = flag.String("report", "", "write the run's report (markdown) to this file")
	layoutDir  = flag.String("images", "dist/images", "OCI layout of make images, relative to the repository")
	nodeIP     = flag.String("node-ip", e2e.DefaultNodeIP, "the node's address, which the test adds to this host (a dummy interface, else a loopback alias) and removes")
	keep       = flag.Bool("keep", false, "leave the cluster's work folder (logs) in place")
)

const (
	ns          = "kollect-system" // the README's and docs/install.md's namespace
	natsRepo    = "kollect-e2e/nats-server"
	natsTag     = "e2e"
	inventories = 4
	// buildRegistry is the image.registry the local build's images are imported under and
	// installed from: never the chart's default, so that the install proves the value works
	// (with the default, the pods would pull from ghcr.io and never start here).
	buildRegistry = "e2e.kollect.test/build"
)

// TestHelmInstallOnARealNode installs the charts on a single-node cluster of real
// components and follows issue 21's scenario; each step is a subtest, a failed step ends the run.
func TestHelmInstallOnARealNode(t *testing.T) {
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tools, err := testenv.ToolsDir()
	if err != nil {
		t.Fatal(err)
	}
	rep := newReport(t, *reportPath)
	addr, err := e2e.AddNodeAddress(*nodeIP)
	if err != nil {
		t.Fatal(err)
	}
	ip := addr.IP
	t.Logf("node address %s on %s", ip, addr.Device)
	rep.components = append(rep.components, fmt.Sprintf("node address %s/32 on %s, added by the test", ip, addr.Device))
	dir, err := os.MkdirTemp("/var/tmp", "kollect-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var c *e2e.Cluster
	t.Cleanup(func() {
		if c != nil {
			if err := c.Stop(ctx); err != nil {
				t.Errorf("stop the cluster: %v", err)
			}
		}
		if err := addr.Remove(); err != nil {
			t.Errorf("remove the node address: %v", err)
		}
		if *keep || t.Failed() {
			t.Logf("work folder (logs in %s/logs) kept", dir)
		} else if err := os.RemoveAll(dir); err != nil {
			t.Errorf("remove %s: %v", dir, err)
		}
	})
	helm, kubectl := filepath.Join(tools, "bin/helm"), filepath.Join(tools, "envtest/kubectl")

	if !rep.step(t, "control plane, containerd, kubelet, kube-proxy and CoreDNS up; node Ready", func(t *testing.T) {
		c, err = e2e.Start(t.Context(), e2e.Config{Dir: dir, Tools: tools, NodeIP: ip, NodeName: "kollect-e2e",
			PodCIDR: "10.244.0.0/24", ServiceCIDR: "10.0.0.0/24", Log: t.Logf})
		if err != nil {
			t.Fatalf("%v (logs in %s)", err, c.Logs())
		}
	}) {
		return
	}
	rep.versions(t, c, kubectl)
	if !rep.step(t, "a pod of the pause image runs and is Ready", func(t *testing.T) { smokePod(t, c) }) {
		return
	}
	// The tag the build is installed under (image.tag): the chart's appVersion and a mark
	// of this run, which no registry has.
	tag := "v" + chartAppVersion(t, repo) + "-e2e." + time.Now().UTC().Format("20060102150405")
	if !rep.step(t, "images imported: the services from the OCI layout as "+buildRegistry+"/<binary>:<tag>, nats-server built here", func(t *testing.T) {
		imgs, err := e2e.LayoutImages(filepath.Join(repo, *layoutDir), buildRegistry, tag)
		if err != nil {
			t.Fatal(err)
		}
		nats, err := c.GoImage(t.Context(), repo, "github.com/nats-io/nats-server/v2", "nats-server")
		if err != nil {
			t.Fatal(err)
		}
		imgs[natsRepo+":"+natsTag] = nats
		if err := c.Import(t.Context(), imgs); err != nil {
			t.Fatal(err)
		}
	}) {
		return
	}
	s := &scenario{t: t, c: c, repo: repo, helm: helm, kubectl: kubectl, rep: rep, dir: dir, tag: tag}
	if !s.readmeRoute() {
		return
	}
	natsPVs(t, c, dir, "e2e-nats", 3)
	s.run()
}

func chartAppVersion(t *testing.T, repo string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "charts/kollect/Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "appVersion:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	t.Fatal("charts/kollect/Chart.yaml has no appVersion")
	return ""
}

// smokePod runs the pause image as a pod and waits for it to be Ready, then deletes it.
func smokePod(t *testing.T, c *e2e.Cluster) {
	ctx := t.Context()
	if _, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		waitFor(t, time.Minute, "the default ServiceAccount", func() error {
			_, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			return err
		})
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "smoke", Namespace: "default"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "pause", Image: e2e.PauseImage, ImagePullPolicy: corev1.PullNever}}}}
	if _, err := c.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	d := waitFor(t, 2*time.Minute, "pod smoke Ready", func() error {
		p, err := c.Client.CoreV1().Pods("default").Get(ctx, "smoke", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				t.Logf("pod smoke Ready on %s, IP %s", p.Spec.NodeName, p.Status.PodIP)
				return nil
			}
		}
		return fmt.Errorf("phase %s%s", p.Status.Phase, podProblems(ctx, c.Client, "default"))
	})
	t.Logf("smoke pod Ready in %v", d.Round(time.Millisecond))
	if err := c.Client.CoreV1().Pods("default").Delete(ctx, "smoke", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// natsPVs creates n hostPath PersistentVolumes without a class for NATS's claims (the
// node has no provisioner), their folders writable by the images' nonroot user.
func natsPVs(t *testing.T, c *e2e.Cluster, dir, prefix string, n int) {
	t.Helper()
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("pv/%s-%d", prefix, i))
		if err := os.MkdirAll(path, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o777); err != nil { // a volume for UID 65532
			t.Fatal(err)
		}
		hostPath := corev1.HostPathDirectory
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: mustQuantity("10Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &hostPath}},
			}}
		if _, err := c.Client.CoreV1().PersistentVolumes().Create(t.Context(), pv, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
