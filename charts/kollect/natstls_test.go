package chart_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv"
)

// busArgs returns a Deployment's --nats-* args with the chart's mount paths moved to dir,
// where the test wrote the same files.
func busArgs(t *testing.T, d *unstructured.Unstructured, addr, dir string) []string {
	t.Helper()
	var out []string
	for _, a := range containerArgs(t, d) {
		switch {
		case strings.HasPrefix(a, "--nats-url="):
			out = append(out, "--nats-url=nats://"+addr)
		case strings.HasPrefix(a, "--nats-tls-"):
			a = strings.Replace(a, "/etc/kollect/nats-tls/ca/", dir+"/", 1)
			out = append(out, strings.Replace(a, "/etc/kollect/nats-tls/client/", dir+"/client-", 1))
		}
	}
	return out
}

func TestServicesReachTheChartsNATSOverTLS(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sets       []string
		clientCert bool
	}{
		{name: "server TLS: every service verifies NATS against the CA",
			sets: []string{"nats.tls.enabled=true", "nats.replicas=1"}},
		{name: "mutual TLS: NATS verifies every service's client certificate",
			sets: []string{"nats.tls.enabled=true", "nats.tls.clientCerts=true", "nats.replicas=1"}, clientCert: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := testenv.WriteTLSFiles(t, dir, "127.0.0.1")
			// The client Secret's keys are tls.crt and tls.key, like the server's: busArgs maps
			// the client mount to client-tls.crt and client-tls.key.
			copyFile(t, files.ClientCert, filepath.Join(dir, "client-tls.crt"))
			copyFile(t, files.ClientKey, filepath.Join(dir, "client-tls.key"))
			objs := decode(t, render(t, "", tc.sets...))
			cm := find(t, objs, "ConfigMap", "kollect-nats")
			conf, _, _ := unstructured.NestedString(cm.Object, "data", "nats.conf")
			if !strings.Contains(conf, "tls {") || strings.Contains(conf, "verify: true") != tc.clientCert {
				t.Fatalf("nats.conf has no TLS block, or verify does not follow clientCerts:\n%s", conf)
			}
			_ = unstructured.SetNestedField(cm.Object, strings.ReplaceAll(conf, "/etc/nats/tls/", dir+"/"), "data", "nats.conf")
			passwords := map[string]string{}
			for s := range catalogPermissions() {
				passwords[string(s)] = "pw-" + string(s)
			}
			addr := chartNATS(t, objs, passwords)
			for name, d := range deployments(t, objs) {
				args := busArgs(t, d, addr, dir)
				if got := slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--nats-tls-cert=") }); got != tc.clientCert {
					t.Errorf("%s: args %v: a client certificate must be passed exactly with clientCerts", name, args)
				}
				o := app.DefaultBusOptions()
				fs := flag.NewFlagSet(name, flag.ContinueOnError)
				o.BindFlags(fs)
				if err := fs.Parse(args); err != nil {
					t.Fatal(err)
				}
				t.Setenv(app.EnvNATSUser, name)
				t.Setenv(app.EnvNATSPassword, passwords[name])
				nc, _, err := o.Connect(busv1.Service(name), nats.MaxReconnects(0))
				if err != nil {
					t.Errorf("%s with the chart's args %v: %v", name, args, err)
					continue
				}
				if _, err := nc.TLSConnectionState(); err != nil {
					t.Errorf("%s: the bus connection is not TLS: %v", name, err)
				}
				nc.Close()
			}
		})
	}
}

func TestNATSTLSMountsOnlyWhatEachSideNeeds(t *testing.T) {
	objs := renderYAML(t, `
nats:
  tls: {enabled: true, clientCerts: true, certManager: {enabled: true}}
`)
	for name, d := range deployments(t, objs) {
		vols := map[string]map[string]any{}
		for _, v := range podSpec(d)["volumes"].([]any) {
			v := v.(map[string]any)
			vols[v["name"].(string)] = v
		}
		ca, _, _ := unstructured.NestedMap(vols["nats-tls-ca"], "secret")
		if ca["secretName"] != "kollect-nats-server-tls" || len(ca["items"].([]any)) != 1 {
			t.Errorf("%s: nats-tls-ca volume %v: want ca.crt alone of the server Secret", name, ca)
		}
		client, _, _ := unstructured.NestedMap(vols["nats-tls-client"], "secret")
		if client["secretName"] != "kollect-nats-client-tls" {
			t.Errorf("%s: nats-tls-client volume %v", name, client)
		}
	}
	server := find(t, objs, "Certificate", "kollect-nats-server")
	dns, _, _ := unstructured.NestedStringSlice(server.Object, "spec", "dnsNames")
	if !slices.Contains(dns, "kollect-nats.kollect-system.svc") {
		t.Errorf("the server certificate names %v, not the Service the services dial", dns)
	}
	for _, n := range []string{"kollect-nats-client", "kollect-nats-ca"} {
		c := find(t, objs, "Certificate", n)
		if ref, _, _ := unstructured.NestedString(c.Object, "spec", "issuerRef", "name"); ref == "" {
			t.Errorf("Certificate %s has no issuer", n)
		}
	}
	find(t, objs, "Issuer", "kollect-nats-ca")

	t.Run("an external NATS without caSecret is trusted through the system's roots", func(t *testing.T) {
		objs := renderYAML(t, "nats: {enabled: false, external: {url: \"tls://nats.example.com:4222\"}, auth: {enabled: false}, tls: {enabled: true}}\n")
		for name, d := range deployments(t, objs) {
			for _, a := range containerArgs(t, d) {
				if strings.HasPrefix(a, "--nats-tls-") {
					t.Errorf("%s: %s without a CA or client Secret", name, a)
				}
			}
		}
	})
	t.Run("an external NATS with caSecret mounts that CA", func(t *testing.T) {
		objs := renderYAML(t, "nats: {enabled: false, external: {url: \"nats://nats.nats.svc:4222\"}, auth: {enabled: false}, tls: {enabled: true, caSecret: nats-ca}}\n")
		d := deployments(t, objs)["collector"]
		if !slices.Contains(containerArgs(t, d), "--nats-tls-ca=/etc/kollect/nats-tls/ca/ca.crt") {
			t.Errorf("collector args %v: want --nats-tls-ca", containerArgs(t, d))
		}
		if slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "Certificate" }) {
			t.Error("a Certificate is rendered without certManager.enabled")
		}
	})
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
