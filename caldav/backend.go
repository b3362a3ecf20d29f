package caldav

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	"github.com/emersion/go-webdav/caldav"

	"github.com/assistant-dev/assistant/store"
)

// backend is what go-webdav's caldav.Handler asks of the store: the
// principal and home of the signed-in person, their two collections, and
// one object (for a PROPFIND of an object's URL). The writes and reports
// it would take are answered by this package before they reach it.
type backend struct{ s *server }

var errServedElsewhere = webdav.NewHTTPError(http.StatusForbidden, errors.New("not served here; ask the collection itself"))

// CurrentUserPrincipal is /dav/NAME/ (unescaped: the library escapes).
func (b *backend) CurrentUserPrincipal(ctx context.Context) (string, error) {
	return Prefix + "/" + person(ctx).Name + "/", nil
}

// CalendarHomeSetPath is /dav/NAME/calendars/.
func (b *backend) CalendarHomeSetPath(ctx context.Context) (string, error) {
	return Prefix + "/" + person(ctx).Name + "/calendars/", nil
}

func (b *backend) calendars(ctx context.Context) []caldav.Calendar {
	p := person(ctx)
	var out []caldav.Calendar
	for _, c := range []string{store.DAVEvents, store.DAVTasks} {
		out = append(out, caldav.Calendar{
			Path:                  Prefix + "/" + p.Name + "/calendars/" + c + "/",
			Name:                  collectionNames[c],
			Description:           collectionNames[c] + " of " + p.Name + ", kept by assistant",
			MaxResourceSize:       MaxBody,
			SupportedComponentSet: []string{kindOf(c)},
		})
	}
	return out
}

// ListCalendars is the two collections.
func (b *backend) ListCalendars(ctx context.Context) ([]caldav.Calendar, error) {
	return b.calendars(ctx), nil
}

// GetCalendar is one of the two collections.
func (b *backend) GetCalendar(ctx context.Context, path string) (*caldav.Calendar, error) {
	for _, c := range b.calendars(ctx) {
		if c.Path == path || c.Path == path+"/" {
			return &c, nil
		}
	}
	return nil, webdav.NewHTTPError(http.StatusNotFound, errors.New("no such calendar"))
}

// GetCalendarObject is one object, read and rendered as GET does.
func (b *backend) GetCalendarObject(ctx context.Context, path string, _ *caldav.CalendarCompRequest) (*caldav.CalendarObject, error) {
	p := person(ctx)
	t := parsePath(path)
	if t.kind != atObject || t.person != p.Name {
		return nil, webdav.NewHTTPError(http.StatusNotFound, errors.New("no such object"))
	}
	var out *caldav.CalendarObject
	err := b.s.st.Read(ctx, p.ID, func(tx *store.Tx) error {
		res, ok, err := resolve(tx, t.collection, t.name)
		if err != nil {
			return err
		}
		if !ok {
			return webdav.NewHTTPError(http.StatusNotFound, errors.New("no such object"))
		}
		body, err := res.body(p)
		if err != nil {
			return err
		}
		cal, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
		if err != nil {
			return err
		}
		tag := etag(body)
		out = &caldav.CalendarObject{Path: path, ModTime: res.modTime(), ContentLength: int64(len(body)), ETag: tag[1 : len(tag)-1], Data: cal}
		return nil
	})
	return out, err
}

// The rest is answered by this package before the library sees it.

func (b *backend) CreateCalendar(context.Context, *caldav.Calendar) error { return errServedElsewhere }
func (b *backend) ListCalendarObjects(context.Context, string, *caldav.CalendarCompRequest) ([]caldav.CalendarObject, error) {
	return nil, errServedElsewhere
}
func (b *backend) QueryCalendarObjects(context.Context, string, *caldav.CalendarQuery) ([]caldav.CalendarObject, error) {
	return nil, errServedElsewhere
}
func (b *backend) PutCalendarObject(context.Context, string, *ical.Calendar, *caldav.PutCalendarObjectOptions) (*caldav.CalendarObject, error) {
	return nil, errServedElsewhere
}
func (b *backend) DeleteCalendarObject(context.Context, string) error { return errServedElsewhere }
