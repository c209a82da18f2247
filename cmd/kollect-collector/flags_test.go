package main

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app/apptest"
	"kollect.dev/kollect/services/collector"
)

// Every flag of the binary, its default and its usage, as operators see
// them in --help: a renamed flag, a changed default or a new flag shows here.
func TestTheFlagsAreTheGoldenOnes(t *testing.T) {
	c := collector.DefaultConfig()
	apptest.CheckFlags(t, string(busv1.ServiceCollector), &c)
}
