package postgres

import (
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// A tenant's connection string cannot make the shared exporter read a
// file of its choosing: the parameter is refused before the driver parses
// the string (which reads such files at once), so the file is never opened.
func TestConnectionStringsCannotNameLocalFiles(t *testing.T) {
	file, opened := testenv.Tripwire(t, "host:5432:db:user:secret-from-a-file")
	for _, tc := range []struct{ name, dsn, param string }{
		{"a URL passfile", "postgres://u@db.example.com/x?passfile=" + file, "passfile"},
		{"a URL sslrootcert", "postgres://u@db.example.com/x?sslmode=verify-full&sslrootcert=" + file, "sslrootcert"},
		{"a keyword sslkey", "host=db.example.com user=u sslkey=" + file, "sslkey"},
		{"a quoted keyword servicefile", "host=db.example.com servicefile='" + file + "' user=u", "servicefile"},
		{"a keyword service", "service=prod", "service"},
		{"a keyword sslcert after a quoted password", "password='a b=c' sslcert=" + file, "sslcert"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, err := parse(tc.dsn, "the Secret's dsn")
			if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), "sets "+tc.param) {
				t.Fatalf("parse = %v, want a permanent error naming %s", err, tc.param)
			}
			if strings.Contains(err.Error(), file) {
				t.Errorf("the error quotes the connection string: %v", err)
			}
		})
	}
	if opened() {
		t.Fatal("a file named by a connection string was opened")
	}
	for _, dsn := range []string{
		"postgres://u@db.example.com/x?sslmode=verify-full&sslrootcert=system",
		"host=db.example.com user=u password='pass=word sslkey=x' dbname=x",
		"postgres://u@db.example.com/x?application_name=kollect",
	} {
		if _, err := parse(dsn, "spec.endpoint"); err != nil {
			t.Errorf("parse(%q) = %v, want it accepted", dsn, err)
		}
	}
}
