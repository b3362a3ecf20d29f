package caldav

import "testing"

func TestClientName(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.3.1": "Thunderbird/115.3.1",
		"DAVx5/4.4.1-ose (dav4jvm; okhttp/4.12.0) Android/14":                          "DAVx5/4.4.1-ose",
		"iOS/17.1 (21B74) dataaccessd/1.0":                                             "iOS/17.1",
		"vdirsyncer/0.19.0":                                                            "vdirsyncer/0.19.0",
		"python-requests/2.28.1":                                                       "python-requests/2.28.1",
		"Mozilla/5.0":                                                                  "",
		"":                                                                             "",
	} {
		if got := clientName(ua); got != want {
			t.Errorf("clientName(%q) = %q, want %q", ua, got, want)
		}
	}
}
