package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// What each signal does in an interactive chat, at the prompt and during
// a turn.
func TestChatSignals(t *testing.T) {
	type step struct {
		turn   bool      // a turn runs when the signal comes
		sig    os.Signal // nil: the turn ends without one
		cancel bool      // the running turn is cancelled
		prompt bool      // the prompt is unblocked
		quit   bool      // the chat quits
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"SIGINT at the prompt quits", []step{{sig: os.Interrupt, prompt: true, quit: true}}},
		{"SIGTERM at the prompt quits", []step{{sig: syscall.SIGTERM, prompt: true, quit: true}}},
		{"one SIGINT stops the turn only", []step{{turn: true, sig: os.Interrupt, cancel: true}}},
		{"a second SIGINT in the turn quits", []step{{turn: true, sig: os.Interrupt, cancel: true}, {turn: true, sig: os.Interrupt, cancel: true, quit: true}}},
		{"SIGTERM in a turn quits", []step{{turn: true, sig: syscall.SIGTERM, cancel: true, quit: true}}},
		{"a SIGINT per turn never quits", []step{{turn: true, sig: os.Interrupt, cancel: true}, {turn: true}, {turn: true, sig: os.Interrupt, cancel: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prompts := 0
			s := &chatSignals{atPrompt: func() { prompts++ }}
			running := false
			cancels := 0
			for i, st := range c.steps {
				if st.turn && !running {
					s.begin(func() { cancels++ })
					running = true
				}
				before, beforePrompts := cancels, prompts
				if st.sig != nil {
					s.handle(st.sig)
				}
				if got := cancels > before; got != st.cancel {
					t.Errorf("step %d: turn cancelled = %v, want %v", i, got, st.cancel)
				}
				if got := prompts > beforePrompts; got != st.prompt {
					t.Errorf("step %d: prompt unblocked = %v, want %v", i, got, st.prompt)
				}
				if got := s.quitting(); got != st.quit {
					t.Errorf("step %d: quitting = %v, want %v", i, got, st.quit)
				}
				// A turn ends after its step unless the next step is a signal
				// in the same turn.
				if running && (i+1 == len(c.steps) || c.steps[i+1].sig == nil || st.sig == nil) {
					if q := s.end(); q != st.quit {
						t.Errorf("step %d: end says quit = %v, want %v", i, q, st.quit)
					}
					running = false
				}
			}
		})
	}
}

// The watcher hands the signals of the channel to handle, and stops.
func TestChatSignalsWatch(t *testing.T) {
	quit := make(chan struct{})
	s := &chatSignals{atPrompt: func() { close(quit) }}
	sigs, stop := make(chan os.Signal, 1), make(chan struct{})
	done := make(chan struct{})
	go func() { s.watch(sigs, stop); close(done) }()
	sigs <- syscall.SIGTERM
	select {
	case <-quit:
	case <-time.After(10 * time.Second):
		t.Fatal("a SIGTERM at the prompt did not unblock it")
	}
	close(stop)
	<-done
	if !s.quitting() {
		t.Error("not quitting after a SIGTERM at the prompt")
	}
}
