package aggregator

import (
	"strings"
	"testing"
)

// The defaults must validate as they are (app.Main refuses to start
// otherwise), and a value out of range is named by its flag.
func TestValidateAcceptsTheDefaultsAndNamesTheFlagOutOfRange(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	for flag, change := range map[string]func(*Config){
		"--settle":                         func(c *Config) { c.Settle = -1 },
		"--replay-ack-timeout":             func(c *Config) { c.ReplayAckTimeout = 0 },
		"--max-replays":                    func(c *Config) { c.MaxReplays = 0 },
		"--max-replays-per-namespace":      func(c *Config) { c.MaxReplaysPerNamespace = c.MaxReplays + 1 },
		"--replay-max-attempts":            func(c *Config) { c.ReplayMaxAttempts = 0 },
		"--history-revisions":              func(c *Config) { c.HistoryRevisions = -1 },
		"--leader-election-lease-duration": func(c *Config) { c.Leader.LeaseDuration = 0 },
		"--leader-election-identity":       func(c *Config) { c.Leader.Identity = "" },
		"--nats-url":                       func(c *Config) { c.Bus.URL = "" },
	} {
		c := DefaultConfig()
		change(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("with %s out of range, Validate = %v; want an error naming it", flag, err)
		}
	}
}
