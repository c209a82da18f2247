package loadtest

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/bus"
)

// Point is one sample of a time series: seconds since the run started.
type Point struct {
	T float64 `json:"t"`
	V float64 `json:"v"`
}

// sampler records RSS and CPU of the watched processes and the bus backlog
// every second.
type sampler struct {
	start time.Time
	js    jetstream.JetStream

	mu       sync.Mutex
	pids     map[string]int     // name -> pid (postgres: the postmaster)
	rss      map[string][]Point // MiB
	hwm      map[string]float64 // MiB
	cpu      map[string]float64 // seconds, latest
	backlog  map[string][]Point // messages
	load     []Point            // the machine's 1-minute load average
	busBytes map[string][]Point // bytes stored per JetStream stream, and "total"
	phases   []phaseMark
	// busIn, when set, reads the bytes the services published to the bus
	// so far (every node's client connections).
	busIn func() (float64, error)
	// gitCPU, when set, reads the CPU seconds of the Git server's
	// http-backend processes so far (reported as gitProcess).
	gitCPU func() (float64, error)
	// streamReplicas counts the streams by their replica count, as last
	// sampled.
	streamReplicas map[int]int
	// frozen pauses sampling: what the processes do while the run tears
	// them down (a replica left alone takes every shard) is not the run's.
	frozen bool
}

// freeze takes a last sample and pauses sampling until thaw.
func (s *sampler) freeze(ctx context.Context) {
	s.sample(ctx)
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
}

// thaw resumes sampling.
func (s *sampler) thaw() {
	s.mu.Lock()
	s.frozen = false
	s.mu.Unlock()
}

// gitProcess names the Git server's CPU among the processes: every
// git http-backend and what it waited for, from the server's CPU log.
const gitProcess = "git http-backend"

// phaseMark is the state at the start of a phase.
type phaseMark struct {
	Name string
	At   float64
	CPU  map[string]float64
	Load [3]float64 // 1, 5 and 15-minute load averages
	// BusIn is what busIn read; -1 when unknown.
	BusIn float64
}

func newSampler(start time.Time, natsURL string) (*sampler, error) {
	nc, err := nats.Connect(natsURL, nats.Name(samplerClientName))
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	return &sampler{start: start, js: js, pids: map[string]int{}, rss: map[string][]Point{},
		hwm: map[string]float64{}, cpu: map[string]float64{}, backlog: map[string][]Point{},
		busBytes: map[string][]Point{}}, nil
}

// samplerClientName is the sampler's NATS connection's name.
const samplerClientName = "kollect-loadtest"

// watch adds a process to sample.
func (s *sampler) watch(name string, pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pids[name] = pid
}

// watchPeers finds kube-apiserver, etcd and the PostgreSQL postmaster among
// this process's children, and this process (which embeds NATS).
func (s *sampler) watchPeers() {
	for comm, pids := range children(os.Getpid()) {
		switch comm {
		case "kube-apiserver", "etcd", "postgres":
			s.watch(comm, pids[0])
		}
	}
	s.watch("loadtest", os.Getpid())
}

// run samples every second until ctx ends.
func (s *sampler) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		s.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *sampler) sample(ctx context.Context) {
	t := time.Since(s.start).Seconds()
	s.mu.Lock()
	if s.frozen {
		s.mu.Unlock()
		return
	}
	pids := make(map[string]int, len(s.pids))
	for k, v := range s.pids {
		pids[k] = v
	}
	s.mu.Unlock()
	for name, pid := range pids {
		st, err := readProc(pid)
		if err != nil {
			continue // exited
		}
		rss, hwm, cpu := st.RSS, st.HWM, st.CPU
		if name == "postgres" { // the postmaster's backends do the work
			cpu += st.ChildCPU
			for _, kids := range children(pid) {
				for _, k := range kids {
					if ks, err := readProc(k); err == nil {
						rss, cpu = rss+ks.RSS, cpu+ks.CPU
					}
				}
			}
			hwm = rss
		}
		s.mu.Lock()
		s.rss[name] = append(s.rss[name], Point{t, rss})
		s.hwm[name] = max(s.hwm[name], hwm, rss)
		s.cpu[name] = max(s.cpu[name], cpu)
		s.mu.Unlock()
	}
	if s.gitCPU != nil {
		if v, err := s.gitCPU(); err == nil {
			s.mu.Lock()
			s.cpu[gitProcess] = max(s.cpu[gitProcess], v)
			s.mu.Unlock()
		}
	}
	s.sampleBus(ctx, t)
	s.sampleStorage(ctx, t)
	if l, ok := loadavg3(); ok {
		s.mu.Lock()
		s.load = append(s.load, Point{t, l[0]})
		s.mu.Unlock()
	}
}

// sampleBus records pending plus unacknowledged messages per consumer of the
// snapshot stream and of the rows bucket (the aggregator's watch).
func (s *sampler) sampleBus(ctx context.Context, t float64) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	for _, stream := range []string{bus.StreamSnapshots, bus.KVStreamName(bus.BucketRows)} {
		st, err := s.js.Stream(ctx, stream)
		if err != nil {
			continue
		}
		sums := map[string]float64{}
		l := st.ListConsumers(ctx)
		for ci := range l.Info() {
			name := ci.Config.Durable
			if name == "" {
				name = "watch"
			}
			sums[stream+"/"+name] += float64(ci.NumPending) + float64(ci.NumAckPending)
		}
		s.mu.Lock()
		for k, v := range sums {
			s.backlog[k] = append(s.backlog[k], Point{t, v})
		}
		s.mu.Unlock()
	}
}

// mark records every process's CPU seconds at the start of a phase.
func (s *sampler) mark(name string) {
	s.sample(context.Background())
	busIn := -1.0
	if s.busIn != nil {
		if v, err := s.busIn(); err == nil {
			busIn = v
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cpu := make(map[string]float64, len(s.cpu))
	for k, v := range s.cpu {
		cpu[k] = v
	}
	l, _ := loadavg3()
	s.phases = append(s.phases, phaseMark{Name: name, At: time.Since(s.start).Seconds(), CPU: cpu, Load: l, BusIn: busIn})
}
