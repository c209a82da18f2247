package kafka

import (
	"errors"
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
	if spec.Type != v1alpha1.EventKafka {
		return settings{}, fmt.Errorf("spec.type is %q, want kafka", spec.Type)
	}
	k := spec.Kafka
	if k == nil {
		return settings{}, errors.New("spec.kafka is required for type kafka")
	}
	set := settings{topic: k.Topic, brokers: k.Brokers, ensure: true}
	switch {
	case len(k.Brokers) > 0 && spec.Endpoint != "":
		return settings{}, errors.New("set exactly one of spec.endpoint and spec.kafka.brokers")
	case len(k.Brokers) == 0 && spec.Endpoint == "":
		return settings{}, errors.New("spec.kafka.brokers or spec.endpoint is required")
	case spec.Endpoint != "":
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
	switch k.Mode {
	case "", v1alpha1.KafkaModeSnapshot:
	case v1alpha1.KafkaModePerRow:
		set.perRow = true
	default:
		return settings{}, fmt.Errorf("spec.kafka.mode %q must be snapshot or perRow", k.Mode)
	}
	if k.SASL != nil {
		switch k.SASL.Mechanism {
		case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
			set.mechanism = k.SASL.Mechanism
		default:
			return settings{}, fmt.Errorf("spec.kafka.sasl.mechanism %q must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", k.SASL.Mechanism)
		}
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
