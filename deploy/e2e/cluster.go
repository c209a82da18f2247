package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// PauseImage is the sandbox image containerd runs for every pod: the pause program of
// this package, built and imported by ImportPause.
const PauseImage = "registry.k8s.io/pause:3.10"

// Config says where the cluster runs.
type Config struct {
	// Dir is the work folder: certificates, kubeconfigs, data, logs.
	Dir string
	// Tools is the tool cache of deploy/tools/build.sh (envtest/, cluster/, bin/).
	Tools string
	// NodeIP is the host's address, where the API server, kubelet and CoreDNS listen and
	// pods reach the host.
	NodeIP string
	// NodeName is the Node's name.
	NodeName string
	// PodCIDR is the pods' subnet on the bridge; ServiceCIDR the ClusterIPs'.
	PodCIDR, ServiceCIDR string
	// Log receives progress lines.
	Log func(format string, args ...any)
}

// Cluster is a running single-node cluster.
type Cluster struct {
	cfg Config
	// PKI holds the certificates; Admin is the kubeconfig of a cluster admin.
	PKI   *PKI
	Admin string
	// Client is an admin client.
	Client kubernetes.Interface
	procs  []*process
	// runtime is set once containerd serves: Stop removes its containers first.
	runtime bool
}

// APIURL is the API server's address.
func (c *Cluster) APIURL() string { return "https://" + c.cfg.NodeIP + ":6443" }

// ContainerdSocket is containerd's gRPC socket.
func (c *Cluster) ContainerdSocket() string { return filepath.Join(c.cfg.Dir, "containerd.sock") }

// Logs is the folder of the components' logs.
func (c *Cluster) Logs() string { return filepath.Join(c.cfg.Dir, "logs") }

func (c *Cluster) toolPath(rel string) string { return filepath.Join(c.cfg.Tools, rel) }

func (c *Cluster) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		c.cfg.Log(format, args...)
	}
}

// Start brings the cluster up in order and returns when the node is Ready. On error, the
// caller still calls Stop for what started.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	c := &Cluster{cfg: cfg}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"certificates", c.certificates},
		{"etcd", c.startEtcd},
		{"kube-apiserver", c.startAPIServer},
		{"controller-manager and scheduler", c.startControllers},
		{"containerd", c.startContainerd},
		{"kubelet", c.startKubelet},
		{"kube-proxy and CoreDNS", c.startNetwork},
	}
	for _, s := range steps {
		t0 := time.Now()
		if err := s.run(ctx); err != nil {
			return c, fmt.Errorf("start %s: %w", s.name, err)
		}
		c.logf("%s up in %v", s.name, time.Since(t0).Round(time.Millisecond))
	}
	return c, nil
}

func (c *Cluster) certificates(context.Context) error {
	p, err := NewPKI(filepath.Join(c.cfg.Dir, "pki"))
	if err != nil {
		return err
	}
	c.PKI = p
	svcIP, err := firstIP(c.cfg.ServiceCIDR)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	issue := []struct {
		name, cn string
		orgs     []string
		hosts    []string
	}{
		{"apiserver", "kube-apiserver", nil, []string{c.cfg.NodeIP, "127.0.0.1", svcIP, "localhost", "kubernetes",
			"kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}},
		{"apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"}, nil},
		{"admin", "kollect-e2e-admin", []string{"system:masters"}, nil},
		// The aggregator's client certificate towards API extensions (Kollect's query service).
		{"front-proxy-client", "front-proxy-client", nil, nil},
		{"controller-manager", "system:kube-controller-manager", nil, nil},
		{"scheduler", "system:kube-scheduler", nil, nil},
		{"kube-proxy", "system:kube-proxy", nil, nil},
		{"node", "system:node:" + c.cfg.NodeName, []string{"system:nodes"}, nil},
		{"kubelet", c.cfg.NodeName, nil, []string{c.cfg.NodeIP, c.cfg.NodeName, host}},
	}
	for _, i := range issue {
		if err := p.Issue(i.name, i.cn, i.orgs, i.hosts...); err != nil {
			return err
		}
	}
	for _, n := range []string{"admin", "controller-manager", "scheduler", "kube-proxy", "node"} {
		path, err := c.writeKubeconfig(n)
		if err != nil {
			return err
		}
		if n == "admin" {
			c.Admin = path
		}
	}
	rc, err := clientcmd.BuildConfigFromFlags("", c.Admin)
	if err != nil {
		return fmt.Errorf("admin kubeconfig: %w", err)
	}
	c.Client, err = kubernetes.NewForConfig(rc)
	return err
}

func (c *Cluster) startEtcd(context.Context) error {
	data := filepath.Join(c.cfg.Dir, "etcd")
	p, err := c.start("etcd", c.toolPath("envtest/etcd"), []string{"--data-dir=" + data,
		"--listen-client-urls=http://127.0.0.1:23791", "--advertise-client-urls=http://127.0.0.1:23791",
		"--listen-peer-urls=http://127.0.0.1:23792", "--unsafe-no-fsync", "--quota-backend-bytes=4294967296"})
	if err != nil {
		return err
	}
	return waitFor(p, time.Minute, "etcd healthy", func() error { return httpOK(http.DefaultClient, "http://127.0.0.1:23791/health") })
}

func (c *Cluster) startAPIServer(context.Context) error {
	pk := c.PKI.Path
	p, err := c.start("kube-apiserver", c.toolPath("envtest/kube-apiserver"), []string{
		"--etcd-servers=http://127.0.0.1:23791", "--bind-address=0.0.0.0", "--secure-port=6443",
		"--advertise-address=" + c.cfg.NodeIP, "--service-cluster-ip-range=" + c.cfg.ServiceCIDR,
		"--tls-cert-file=" + pk("apiserver.crt"), "--tls-private-key-file=" + pk("apiserver.key"),
		"--client-ca-file=" + pk("ca.crt"), "--authorization-mode=Node,RBAC", "--allow-privileged=true",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + pk("sa.pub"), "--service-account-signing-key-file=" + pk("sa.key"),
		"--kubelet-client-certificate=" + pk("apiserver-kubelet-client.crt"),
		"--kubelet-client-key=" + pk("apiserver-kubelet-client.key"),
		"--kubelet-certificate-authority=" + pk("ca.crt"), "--kubelet-preferred-address-types=InternalIP",
		"--enable-admission-plugins=NodeRestriction", "--cert-dir=" + filepath.Join(c.cfg.Dir, "apiserver-certs"),
		// The aggregation layer, for the query service's APIService: the API server proxies
		// to the pods' addresses with the front-proxy certificate and the user in headers.
		"--requestheader-client-ca-file=" + pk("ca.crt"), "--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-", "--enable-aggregator-routing=true",
		"--proxy-client-cert-file=" + pk("front-proxy-client.crt"), "--proxy-client-key-file=" + pk("front-proxy-client.key"),
	})
	if err != nil {
		return err
	}
	hc, err := c.adminHTTP()
	if err != nil {
		return err
	}
	return waitFor(p, 2*time.Minute, "kube-apiserver ready", func() error { return httpOK(hc, c.APIURL()+"/readyz") })
}

// adminHTTP is an HTTP client with the admin certificate, trusting the cluster's CA.
func (c *Cluster) adminHTTP() (*http.Client, error) {
	cert, err := tls.LoadX509KeyPair(c.PKI.Path("admin.crt"), c.PKI.Path("admin.key"))
	if err != nil {
		return nil, fmt.Errorf("admin certificate: %w", err)
	}
	ca, err := os.ReadFile(c.PKI.Path("ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("CA: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}}}, nil
}

func (c *Cluster) startControllers(context.Context) error {
	pk, dir := c.PKI.Path, c.cfg.Dir
	kc := filepath.Join(dir, "controller-manager.kubeconfig")
	cm, err := c.start("kube-controller-manager", c.toolPath("cluster/kube-controller-manager"), []string{
		"--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
		"--bind-address=127.0.0.1", "--leader-elect=false", "--use-service-account-credentials=true",
		"--root-ca-file=" + pk("ca.crt"), "--service-account-private-key-file=" + pk("sa.key"),
		"--cluster-signing-cert-file=" + pk("ca.crt"), "--cluster-signing-key-file=" + pk("ca.key"),
		"--service-cluster-ip-range=" + c.cfg.ServiceCIDR, "--controllers=*",
		"--cert-dir=" + filepath.Join(dir, "controller-manager-certs"),
	})
	if err != nil {
		return err
	}
	sk := filepath.Join(dir, "scheduler.kubeconfig")
	sch, err := c.start("kube-scheduler", c.toolPath("cluster/kube-scheduler"), []string{
		"--kubeconfig=" + sk, "--authentication-kubeconfig=" + sk, "--authorization-kubeconfig=" + sk,
		"--bind-address=127.0.0.1", "--leader-elect=false", "--cert-dir=" + filepath.Join(dir, "scheduler-certs"),
	})
	if err != nil {
		return err
	}
	insecure := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // G402: their self-signed healthz
	if err := waitFor(cm, time.Minute, "controller-manager healthy", func() error { return httpOK(insecure, "https://127.0.0.1:10257/healthz") }); err != nil {
		return err
	}
	return waitFor(sch, time.Minute, "scheduler healthy", func() error { return httpOK(insecure, "https://127.0.0.1:10259/healthz") })
}

func (c *Cluster) startContainerd(ctx context.Context) error {
	cfg, err := c.writeFile("containerd/config.toml", c.containerdConfig())
	if err != nil {
		return err
	}
	if _, err := c.writeFile("cni/net.d/10-kollect-e2e.conflist", c.cniConfig()); err != nil {
		return err
	}
	p, err := c.start("containerd", c.toolPath("cluster/containerd"), []string{"--config=" + cfg})
	if err != nil {
		return err
	}
	if err := waitFor(p, time.Minute, "containerd serving", func() error {
		_, err := c.ctr(ctx, "version")
		return err
	}); err != nil {
		return err
	}
	c.runtime = true
	return c.ImportPause(ctx)
}

func (c *Cluster) startKubelet(ctx context.Context) error {
	cfg, err := c.writeFile("kubelet/config.yaml", c.kubeletConfig())
	if err != nil {
		return err
	}
	p, err := c.start("kubelet", c.toolPath("cluster/kubelet"), []string{
		"--config=" + cfg, "--kubeconfig=" + filepath.Join(c.cfg.Dir, "node.kubeconfig"),
		"--root-dir=" + filepath.Join(c.cfg.Dir, "kubelet"), "--hostname-override=" + c.cfg.NodeName,
		"--node-ip=" + c.cfg.NodeIP, "--v=1",
	})
	if err != nil {
		return err
	}
	return waitFor(p, 3*time.Minute, "node "+c.cfg.NodeName+" Ready", func() error {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, c.cfg.NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				if cond.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("condition Ready=%s: %s", cond.Status, cond.Message)
			}
		}
		return errors.New("no Ready condition yet")
	})
}

func (c *Cluster) startNetwork(context.Context) error {
	for key, v := range map[string]string{"net/ipv4/ip_forward": "1", "net/bridge/bridge-nf-call-iptables": "1"} {
		if err := os.WriteFile("/proc/sys/"+key, []byte(v), 0o644); err != nil { //nolint:gosec // G306: a sysctl
			return fmt.Errorf("sysctl %s: %w", key, err)
		}
	}
	kp := filepath.Join(c.cfg.Dir, "kube-proxy.kubeconfig")
	pcfg, err := c.writeFile("kube-proxy/config.yaml", c.kubeProxyConfig(kp))
	if err != nil {
		return err
	}
	proxy, err := c.start("kube-proxy", c.toolPath("cluster/kube-proxy"), []string{"--config=" + pcfg})
	if err != nil {
		return err
	}
	if err := waitFor(proxy, time.Minute, "kube-proxy healthy", func() error {
		return httpOK(http.DefaultClient, "http://127.0.0.1:10256/healthz")
	}); err != nil {
		return err
	}
	corefile, err := c.writeFile("coredns/Corefile", c.corefile(c.Admin))
	if err != nil {
		return err
	}
	dns, err := c.start("coredns", c.toolPath("cluster/coredns"), []string{"-conf", corefile})
	if err != nil {
		return err
	}
	return waitFor(dns, time.Minute, "CoreDNS ready", func() error { return httpOK(http.DefaultClient, "http://127.0.0.1:18181/ready") })
}

// Stop removes every pod's containers, stops the components in reverse order and
// unmounts what they left under the work folder.
func (c *Cluster) Stop(ctx context.Context) error {
	var errs []error
	if c.runtime {
		// The kubelet goes first: it would restart the containers being removed.
		for _, p := range c.procs {
			if p.name == "kubelet" {
				errs = append(errs, p.stop(20*time.Second))
			}
		}
		errs = append(errs, killPods(ctx), c.removeContainers(ctx))
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		errs = append(errs, c.procs[i].stop(20*time.Second))
	}
	errs = append(errs, c.cleanHost())
	return errors.Join(errs...)
}

func httpOK(hc *http.Client, url string) error {
	resp, err := hc.Get(url) //nolint:noctx // a probe with the client's timeout
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// firstIP is the first host address of cidr (the kubernetes Service's ClusterIP).
func firstIP(cidr string) (string, error) {
	var a, b, cc, d, bits int
	if _, err := fmt.Sscanf(cidr, "%d.%d.%d.%d/%d", &a, &b, &cc, &d, &bits); err != nil {
		return "", fmt.Errorf("service CIDR %q: %w", cidr, err)
	}
	return strconv.Itoa(a) + "." + strconv.Itoa(b) + "." + strconv.Itoa(cc) + "." + strconv.Itoa(d+1), nil
}

// NodeIP is the node's address, where pods reach the host.
func (c *Cluster) NodeIP() string { return c.cfg.NodeIP }

// NodeName is the Node's name.
func (c *Cluster) NodeName() string { return c.cfg.NodeName }
