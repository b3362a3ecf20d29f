package tz

import "fmt"

// unknownZoneError is the sentence for a zone name that is not in the IANA
// database. TODO: suggest the closest real name.
func unknownZoneError(name string) error {
	return fmt.Errorf("%q is not an IANA time zone; write one such as Europe/Paris or America/New_York", name)
}
