package testenv

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// S3 is an S3 server (versitygw, built by `make tools`) storing buckets as
// plain folders. It checks SigV4 signatures: a wrong secret gets 403.
// Clients must use path-style addressing.
type S3 struct {
	// Endpoint is the server's base URL, http://127.0.0.1:<port>.
	Endpoint string
	// AccessKey and SecretKey are the root user's credentials, random per
	// server.
	AccessKey, SecretKey string
	// Region is the region the server signs for.
	Region string
	// Dir holds the buckets (under data/) and the log.
	Dir string
	// LogFile is the server's output.
	LogFile string

	srv *toolServer
}

// StartS3 starts an S3 server on a temporary folder; the test's cleanup
// stops it.
func StartS3(t testing.TB) *S3 {
	t.Helper()
	s, err := NewS3(t.TempDir())
	if err != nil {
		t.Fatalf("start S3 server: %v", err)
	}
	stopOnCleanup(t, "versitygw", s.Stop, s.srv.tail)
	return s
}

// NewS3 starts an S3 server storing in dir (a new temporary folder that Stop
// removes when dir is empty); the caller owns Stop.
func NewS3(dir string) (*S3, error) {
	s := &S3{AccessKey: "kollect-" + randomHex(6), SecretKey: randomHex(20), Region: "us-east-1"}
	srv, err := startTool(dir, toolSpec{
		tool:    "bin/versitygw",
		name:    "versitygw",
		pattern: "kollect-s3-",
		args: func(port int, data string) []string {
			return []string{"--access", s.AccessKey, "--secret", s.SecretKey, "--region", s.Region,
				"--port", "127.0.0.1:" + strconv.Itoa(port), "posix", data}
		},
		// Any HTTP answer will do: an unsigned probe gets 403.
		ready: func(port int) func() error { return httpReady(fmt.Sprintf("http://127.0.0.1:%d/", port)) },
	})
	if err != nil {
		return nil, err
	}
	s.srv, s.Dir, s.LogFile = srv, srv.dir, srv.logFile
	s.Endpoint = fmt.Sprintf("http://127.0.0.1:%d", srv.port)
	return s, nil
}

// Stop stops the server and removes the folder when NewS3 made it.
func (s *S3) Stop() error { return s.srv.stop() }

// CreateBucket creates the bucket name with a signed request.
func (s *S3) CreateBucket(t testing.TB, name string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, s.Endpoint+"/"+name, http.NoBody)
	if err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	empty := sha256.Sum256(nil)
	payload := hex.EncodeToString(empty[:])
	req.Header.Set("X-Amz-Content-Sha256", payload)
	creds := aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey}
	if err := v4.NewSigner().SignHTTP(t.Context(), creds, req, payload, "s3", s.Region, time.Now()); err != nil {
		t.Fatalf("sign create bucket %s: %v", name, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("create bucket %s: %s\n%s", name, resp.Status, body)
	}
}

// randomHex returns 2n random hexadecimal characters.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on Linux
	return hex.EncodeToString(b)
}
