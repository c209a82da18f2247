package tenancy

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// TestSweepFindsPlantedCanaries plants a value of its own in each place the
// sweep reads and expects the sweep to find it there: a sweep that finds
// nothing after the attacks means something only because of this test.
func TestSweepFindsPlantedCanaries(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, needle string)
		// where is the start of the place name the needle must be found in.
		where string
	}{
		{"a value put into a KV bucket is found in its stream", plantKV, "stream KV_tenancy-sweep-selftest"},
		{"a message published on a subject no stream keeps is found by the tap", plantPublish, "a message published on the bus"},
		{"a value base64-encoded after two other bytes is found", plantBase64, "stream KV_tenancy-sweep-selftest"},
		{"a log line is found", plantLog, "the services' log"},
		{"an event is found", plantEvent, "event default/"},
		{"a condition message of a Kollect object is found", plantStatus, "status of KollectScope sweep-selftest/"},
		{"bytes sent to a recorder are found", plantRecorder, "endpoint sweep-selftest"},
		{"a Git object is found", plantGit, "Git repository "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			needle := "PLANTED-" + rand.Text()[:16]
			tc.plant(t, needle)
			testenv.Eventually(t, 20*time.Second, "the sweep finds the planted value in "+tc.where, func() error {
				found, err := sweep(t.Context(), []string{needle})
				if err != nil {
					return err
				}
				for _, f := range found {
					if strings.HasPrefix(f.place, tc.where) {
						return nil
					}
				}
				return fmt.Errorf("found in %v only", found)
			}, testenv.Every(200*time.Millisecond))
		})
	}
	t.Run("a value planted nowhere is not found", func(t *testing.T) {
		found, err := sweep(t.Context(), []string{"PLANTED-" + rand.Text()[:16]})
		if err != nil || len(found) != 0 {
			t.Fatalf("sweep: %v, found %v", err, found)
		}
	})
}

func selfTestBucket(t *testing.T) jetstream.KeyValue {
	t.Helper()
	kv, err := suite.bus.JS.CreateOrUpdateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: "tenancy-sweep-selftest"})
	if err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return kv
}

func plantKV(t *testing.T, needle string) {
	if _, err := selfTestBucket(t).Put(t.Context(), "plain", []byte(`{"v":"`+needle+`"}`)); err != nil {
		t.Fatal(err)
	}
}

func plantBase64(t *testing.T, needle string) {
	v := base64.StdEncoding.EncodeToString([]byte("ab" + needle + "cd"))
	if _, err := selfTestBucket(t).Put(t.Context(), "encoded", []byte(v)); err != nil {
		t.Fatal(err)
	}
}

func plantPublish(t *testing.T, needle string) {
	if err := suite.bus.Conn.Publish("tenancy.sweep.selftest", []byte(needle)); err != nil {
		t.Fatal(err)
	}
}

func plantLog(_ *testing.T, needle string) {
	suite.log.WithName("sweep-selftest").Info("planted", "value", needle)
}

func plantEvent(t *testing.T, needle string) {
	create(t, suite.admin, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", GenerateName: "sweep-selftest-"},
		InvolvedObject: corev1.ObjectReference{Kind: "Namespace", Name: "default", APIVersion: "v1"},
		Reason:         "Planted", Message: "planted " + needle, Type: corev1.EventTypeNormal,
	})
}

// plantStatus adds a condition of its own to a Scope control has reconciled
// (control patches only the conditions it owns).
func plantStatus(t *testing.T, needle string) {
	ns := "sweep-selftest"
	if err := suite.admin.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	scope := &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s" + strings.ToLower(needle[8:14])}}
	create(t, suite.admin, scope)
	testenv.Eventually(t, 30*time.Second, "control reconciles the Scope", func() error {
		if err := suite.admin.Get(t.Context(), client.ObjectKeyFromObject(scope), scope); err != nil {
			return err
		}
		if meta.FindStatusCondition(scope.Status.Conditions, v1alpha1.ConditionReady) == nil {
			return fmt.Errorf("no Ready condition yet")
		}
		return nil
	}, testenv.Every(200*time.Millisecond))
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := suite.admin.Get(t.Context(), client.ObjectKeyFromObject(scope), scope); err != nil {
			return err
		}
		meta.SetStatusCondition(&scope.Status.Conditions, metav1.Condition{Type: "SweepSelfTest",
			Status: metav1.ConditionTrue, Reason: "Planted", Message: "planted " + needle})
		return suite.admin.Status().Update(t.Context(), scope)
	})
	if err != nil {
		t.Fatalf("plant condition: %v", err)
	}
}

func plantRecorder(t *testing.T, needle string) {
	r, err := startTCPRecorder("sweep-selftest", "127.0.0.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(needle)); err != nil {
		t.Fatal(err)
	}
}

func plantGit(t *testing.T, needle string) {
	g, err := gitServer()
	if err != nil {
		t.Fatalf("start Git server: %v", err)
	}
	g.CreateRepo(t, "sweep-selftest-"+strings.ToLower(needle[8:14]))
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Env = append(cmd.Environ(), "GIT_DIR="+filepath.Join(g.Root, "sweep-selftest-"+strings.ToLower(needle[8:14])+".git"))
	cmd.Stdin = strings.NewReader("content " + needle + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git hash-object: %v: %s", err, out)
	}
}
