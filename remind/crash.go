//go:build remindcrash

package remind

import (
	"fmt"
	"os"
	"time"
)

// In binaries built with -tags remindcrash (tests only), the environment
// variable ASSISTANT_REMIND_STOP=after-send stops the process between
// sending a delivery and marking it sent: it says so on standard error and
// waits to be killed, as a crash at the worst moment would leave things.
// ASSISTANT_REMIND_LEASE (a Go duration such as 3s) replaces DefaultLease,
// so a test of a killed sender waits seconds, not minutes, of real time.
func init() {
	if d, err := time.ParseDuration(os.Getenv("ASSISTANT_REMIND_LEASE")); err == nil && d > 0 {
		leaseOverride = d
	}
	if os.Getenv("ASSISTANT_REMIND_STOP") != "after-send" {
		return
	}
	afterSend = func(d *delivery) {
		fmt.Fprintf(os.Stderr, "remind: stopped after sending %s\n", d.ID)
		for {
			time.Sleep(time.Hour) // a timer, so the runtime never calls it a deadlock
		}
	}
}
