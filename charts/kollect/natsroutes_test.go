package chart_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/pkg/testenv"
)

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestNATSRoutesAreMutualTLS runs the chart's three-replica nats.conf with TLS in three
// real NATS servers (loopback addresses instead of the headless Service's names, the
// test's certificates at the chart's paths): they form a full mesh of routes, and a
// route port demands TLS before anything else.
func TestNATSRoutesAreMutualTLS(t *testing.T) {
	objs := decode(t, render(t, "", "nats.tls.enabled=true", "nats.replicas=3"))
	cm := find(t, objs, "ConfigMap", "kollect-nats")
	conf, _, _ := unstructured.NestedString(cm.Object, "data", "nats.conf")
	cluster := conf[strings.Index(conf, "cluster {"):]
	if !strings.Contains(cluster, "tls {") || !strings.Contains(cluster, "verify: true") {
		t.Fatalf("the cluster block has no mutual TLS:\n%s", cluster)
	}
	off := decode(t, render(t, "", "nats.tls.enabled=true", "nats.tls.routes=false", "nats.replicas=3"))
	offConf, _, _ := unstructured.NestedString(find(t, off, "ConfigMap", "kollect-nats").Object, "data", "nats.conf")
	if strings.Contains(offConf[strings.Index(offConf, "cluster {"):], "tls {") {
		t.Errorf("nats.tls.routes=false still renders TLS on the routes")
	}

	dir := t.TempDir()
	testenv.WritePeerTLSFiles(t, dir, "127.0.0.1")
	path := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(conf, "/etc/nats/tls/", dir+"/")), 0o600); err != nil {
		t.Fatal(err)
	}
	for s := range catalogPermissions() {
		t.Setenv(strings.ToUpper(strings.ReplaceAll(string(s), "-", "_"))+"_PASSWORD", "pw-"+string(s))
	}
	ports := []int{freePort(t), freePort(t), freePort(t)}
	var servers []*server.Server
	for i := range ports {
		t.Setenv("POD_NAME", fmt.Sprintf("kollect-nats-%d", i))
		opts, err := server.ProcessConfigFile(path)
		if err != nil {
			t.Fatalf("parse the chart's nats.conf: %v", err)
		}
		if opts.Cluster.TLSConfig == nil {
			t.Fatal("the parsed cluster options have no TLS")
		}
		opts.Host, opts.Port, opts.HTTPPort, opts.StoreDir, opts.PidFile, opts.NoSigs, opts.NoLog = "127.0.0.1", -1, 0, t.TempDir(), "", true, true
		opts.Cluster.Host, opts.Cluster.Port = "127.0.0.1", ports[i]
		opts.Routes = nil
		for j, p := range ports {
			if j != i {
				opts.Routes = append(opts.Routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
			}
		}
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatalf("start NATS %d: %v", i, err)
		}
		s.Start()
		t.Cleanup(s.Shutdown)
		servers = append(servers, s)
	}
	testenv.Eventually(t, 30*time.Second, "the replicas meshed over TLS", func() error {
		for _, s := range servers {
			if n := s.NumRoutes(); n < 2 {
				return fmt.Errorf("%s has %d routes, want 2", s.Name(), n)
			}
		}
		return nil
	}, testenv.Every(50*time.Millisecond))

	// The route port speaks TLS at once and wants a certificate of the CA: a client
	// presenting the peer certificate completes the handshake, one without is refused.
	files := testenv.TLSFiles{CA: filepath.Join(dir, "ca.crt"), ServerCert: filepath.Join(dir, "tls.crt"), ServerKey: filepath.Join(dir, "tls.key")}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	if err := routeHandshake(addr, files, true); err != nil {
		t.Errorf("a TLS handshake with the peer certificate on the route port: %v", err)
	}
	if err := routeHandshake(addr, files, false); err == nil {
		t.Error("the route port completed a TLS exchange with a client that has no certificate")
	}
}

// routeHandshake dials addr with TLS trusting files.CA, presenting the server
// certificate when withCert, and reads the first line the server sends.
func routeHandshake(addr string, files testenv.TLSFiles, withCert bool) error {
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(files.CA)
	if err != nil {
		return err
	}
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if withCert {
		cert, err := tls.LoadX509KeyPair(files.ServerCert, files.ServerKey)
		if err != nil {
			return err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = bufio.NewReader(c).ReadString('\n')
	return err
}
