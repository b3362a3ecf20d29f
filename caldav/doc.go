// Package caldav serves a person's events and tasks to CalDAV clients
// (RFC 4791), with sync-collection (RFC 6578), on the same HTTP server as
// MCP. See docs/caldav.md.
package caldav
