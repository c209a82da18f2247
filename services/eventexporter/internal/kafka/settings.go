package kafka

import (
	"fmt"
	"regexp"

	"kollect.dev/kollect/api/v1alpha1"
)

// settings is the validated, defaulted kafka part of a sink spec.
type settings struct {
	brokers   []string
	topic     string
	mechanism string // "" when SASL is off
	tls       bool
	perRow    bool
	ensure    bool // provisioning mode ensure (create the topic)
}

var (
	brokerPattern = regexp.MustCompile(`^[^\s/:@]+:[0-9]{1,5}$`)
	topicPattern  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,249}$`)
)

// settingsOf validates spec as the CRD schema does, so that a spec that
// reached the exporter some other way fails with a message naming the field.
func settingsOf(spec v1alpha1.KollectEventSinkSpec) (settings, error) {
	k := spec.Kafka // Validate: set, and exactly one of brokers and endpoint
	set := settings{topic: k.Topic, brokers: k.Brokers, ensure: true, perRow: k.Mode == v1alpha1.KafkaModePerRow}
	if spec.Endpoint != "" {
		set.brokers = []string{spec.Endpoint}
	}
	for _, b := range set.brokers {
		if !brokerPattern.MatchString(b) {
			return settings{}, fmt.Errorf("spec.kafka.brokers: %q is not host:port", b)
		}
	}
	if !topicPattern.MatchString(k.Topic) {
		return settings{}, fmt.Errorf("spec.kafka.topic %q must be 1-249 of A-Z a-z 0-9 . _ -", k.Topic)
	}
	if k.SASL != nil {
		set.mechanism = k.SASL.Mechanism
	}
	set.tls = spec.TLS != nil
	if k.TLS != nil {
		set.tls = *k.TLS
	}
	if p := spec.Provisioning; p != nil && p.Mode == v1alpha1.ProvisionExisting {
		set.ensure = false
	}
	return set, nil
}
