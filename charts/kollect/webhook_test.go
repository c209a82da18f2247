package chart_test

import (
	"flag"
	"io"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/control"
)

// controlConfig parses the control Deployment's args into control's Config (and the
// app.Process flags its main binds too).
func controlConfig(t *testing.T, objs []*unstructured.Unstructured) control.Config {
	t.Helper()
	c, proc := control.DefaultConfig(), app.DefaultProcess()
	fs := flag.NewFlagSet("control", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs)
	proc.BindFlags(fs)
	if err := fs.Parse(containerArgs(t, find(t, objs, "Deployment", "kollect-control"))); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestControlsWebhookFlagsNameTheChartsObjects(t *testing.T) {
	t.Run("self-managed: the Secret, webhook configuration and Service control manages are rendered and granted", func(t *testing.T) {
		objs := decode(t, render(t, ""))
		c := controlConfig(t, objs).Webhook
		vwc := find(t, objs, "ValidatingWebhookConfiguration", c.ConfigName)
		hooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
		svcName, _, _ := unstructured.NestedString(hooks[0].(map[string]any), "clientConfig", "service", "name")
		svcNS, _, _ := unstructured.NestedString(hooks[0].(map[string]any), "clientConfig", "service", "namespace")
		find(t, objs, "Service", svcName)
		if want := svcName + "." + svcNS + ".svc"; !slices.Contains(c.Hosts, want) {
			t.Errorf("--webhook-hosts %v lacks the Service name %s", c.Hosts, want)
		}
		if c.Namespace != namespace || c.CertDir != "" || c.Port <= 0 {
			t.Errorf("webhook config %+v: want the release namespace, no cert dir, a port", c)
		}
		if !grants(find(t, objs, "Role", "kollect-control"), "secrets", c.Secret, "get") {
			t.Errorf("control's Role does not grant get on its Secret %s", c.Secret)
		}
		if !grants(find(t, objs, "ClusterRole", "kollect-control"), "validatingwebhookconfigurations", c.ConfigName, "patch") {
			t.Errorf("control's ClusterRole does not grant patch on %s", c.ConfigName)
		}
	})
	t.Run("cert-manager: control reads the Certificate's Secret from --webhook-cert-dir", func(t *testing.T) {
		objs := decode(t, render(t, valuesSets["full"]))
		c := controlConfig(t, objs).Webhook
		cert := find(t, objs, "Certificate", "kollect-control-webhook")
		secret, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
		d := find(t, objs, "Deployment", "kollect-control")
		spec := d.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		var volume string
		for _, v := range spec["volumes"].([]any) {
			if s, ok := v.(map[string]any)["secret"].(map[string]any); ok && s["secretName"] == secret {
				volume = v.(map[string]any)["name"].(string)
			}
		}
		mounted := false
		for _, m := range spec["containers"].([]any)[0].(map[string]any)["volumeMounts"].([]any) {
			m := m.(map[string]any)
			mounted = mounted || (m["name"] == volume && m["mountPath"] == c.CertDir)
		}
		if volume == "" || !mounted {
			t.Errorf("Secret %s is not mounted at --webhook-cert-dir %q", secret, c.CertDir)
		}
	})
	t.Run("client CA: control reads the ConfigMap named by control.webhook.clientCA from --webhook-client-ca-file", func(t *testing.T) {
		objs := decode(t, render(t, "", "control.webhook.clientCA.name=apiserver-client-ca"))
		c := controlConfig(t, objs).Webhook
		spec := find(t, objs, "Deployment", "kollect-control").Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		var volume string
		for _, v := range spec["volumes"].([]any) {
			if cm, ok := v.(map[string]any)["configMap"].(map[string]any); ok && cm["name"] == "apiserver-client-ca" {
				volume = v.(map[string]any)["name"].(string)
			}
		}
		mounted := false
		for _, m := range spec["containers"].([]any)[0].(map[string]any)["volumeMounts"].([]any) {
			m := m.(map[string]any)
			mounted = mounted || (m["name"] == volume && m["mountPath"].(string)+"/ca.crt" == c.ClientCAFile)
		}
		if volume == "" || !mounted {
			t.Errorf("ConfigMap apiserver-client-ca is not mounted where --webhook-client-ca-file %q reads", c.ClientCAFile)
		}
	})
	t.Run("no client CA: control answers any caller, which the NetworkPolicy alone limits", func(t *testing.T) {
		if c := controlConfig(t, decode(t, render(t, ""))).Webhook; c.ClientCAFile != "" || c.ReviewRate <= 0 || c.ReviewBurst <= 0 {
			t.Errorf("default webhook config %+v: want no client CA and a review rate limit", c)
		}
	})
}

// grants reports whether a Role or ClusterRole grants verb on resource (by name or all).
func grants(role *unstructured.Unstructured, resource, name, verb string) bool {
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range rules {
		r := r.(map[string]any)
		has := func(key, v string) bool {
			l, ok := r[key].([]any)
			return ok && (slices.Contains(l, any(v)) || slices.Contains(l, any("*")))
		}
		_, named := r["resourceNames"]
		if has("resources", resource) && has("verbs", verb) && (!named || has("resourceNames", name)) {
			return true
		}
	}
	return false
}
