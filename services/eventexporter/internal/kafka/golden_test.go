package kafka_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv/golden"
)

// TestGoldenRecords pins what consumers read: the records of two exports
// (a change and a delete) in each mode, with keys, headers and values.
func TestGoldenRecords(t *testing.T) {
	for _, mode := range []string{v1alpha1.KafkaModeSnapshot, v1alpha1.KafkaModePerRow} {
		t.Run("the records of mode "+mode+" match testdata/"+mode+".golden", func(t *testing.T) {
			broker := startKafka(t, kfake.DefaultNumPartitions(1))
			s := newSink(t, private, sinkConfig(t, spec(broker, "golden", mode)), nil)
			first := snap(t, web, 1, row("a", 1), row("b", 2))
			second := snap(t, web, 2, row("a", 3))
			second.Envelope = second.Envelope.Stamp("east", exportedAt.Add(time.Minute))
			write(t, s, first)
			write(t, s, second)
			recs, err := readTopic(context.Background(), broker, "golden")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			for _, r := range recs {
				fmt.Fprintf(&out, "key: %s\n", r.Key)
				for _, h := range r.Headers {
					fmt.Fprintf(&out, "header: %s=%s\n", h.Key, h.Value)
				}
				if r.Value == nil {
					out.WriteString("value: null\n\n")
					continue
				}
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, r.Value, "", "  "); err != nil {
					t.Fatalf("record value is not JSON: %v", err)
				}
				fmt.Fprintf(&out, "value: %s\n\n", pretty.Bytes())
			}
			golden.Check(t, filepath.Join("testdata", mode+".golden"), out.Bytes())
		})
	}
}
