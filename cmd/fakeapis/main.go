// Command fakeapis serves a fake Telegram Bot API and a fake status page on
// loopback, for trying the bot (make run) where the real ones are out of
// reach. Point TELEGRAM_API_URL and STATUSPAGE_URL at it. The status page is
// incident.io by default, like the real status.openai.com; -provider
// statuspage serves a classic Atlassian Statuspage instead.
//
//	fakeapis -telegram 127.0.0.1:8081 -statuspage 127.0.0.1:8082 -token "$TELEGRAM_BOT_TOKEN"
//	curl -X POST '127.0.0.1:8081/control/user?chat=42&text=/start'          # a user subscribes
//	curl -X POST '127.0.0.1:8082/control/incident?id=INC1&name=Errors&status=investigating&update=U1&body=Looking&component=01KMKFAMWKNQ84Z1766MV08ZDE&component_status=partial_outage'
//	curl -X POST '127.0.0.1:8082/control/component?id=01JMXBRMFE4MAP2BHSJNZ787WX&status=full_outage'
//	curl -X POST '127.0.0.1:8082/control/maintenance?id=M1&name=Upgrade&status=scheduled&update=MU1&body=Soon&component=01KMKFAMWKNQ84Z1766MV08ZDE&start=2026-12-01T10:00:00Z&end=2026-12-01T11:00:00Z'
//	curl '127.0.0.1:8081/control/messages'                                   # what the bot sent
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/fakes"
)

// page is what both fakes let the controls do.
type page interface {
	http.Handler
	SetComponent(id, name, status string)
	AddIncidentUpdate(incidentID, name, status, impact, updateID, body string)
	AddMaintenanceUpdate(id, name, status, updateID, body string)
	AffectComponent(incidentID, componentID, status string)
	SetMaintenanceWindow(id string, start, end time.Time)
	ComponentIDs() []string
}

func main() {
	tgAddr := flag.String("telegram", "127.0.0.1:8081", "address of the fake Bot API")
	pageAddr := flag.String("statuspage", "127.0.0.1:8082", "address of the fake status page")
	token := flag.String("token", os.Getenv("TELEGRAM_BOT_TOKEN"), "bot token the fake accepts")
	provider := flag.String("provider", "incidentio", "status page to imitate: incidentio (like status.openai.com) or statuspage")
	flag.Parse()

	var pg page
	switch *provider {
	case "incidentio":
		io := fakes.NewIncidentIO()
		io.Server.Close() // served below on -statuspage instead
		pg = io
	case "statuspage":
		sp := fakes.NewStatuspage()
		sp.Server.Close()
		pg = sp
	default:
		fmt.Fprintf(os.Stderr, "fakeapis: -provider must be incidentio or statuspage, got %q\n", *provider)
		os.Exit(2)
	}
	tg := fakes.NewTelegram(*token)
	updates := fakes.NewUpdates(tg, 1)
	tg.ChatMembers(nil) // nobody is an admin unless the control says so

	go func() { log.Fatal(http.ListenAndServe(*pageAddr, pageMux(pg))) }()
	log.Printf("fake Telegram on http://%s, fake %s status page on http://%s", *tgAddr, *provider, *pageAddr)
	log.Fatal(http.ListenAndServe(*tgAddr, telegramMux(tg, updates)))
}

func telegramMux(tg *fakes.Telegram, updates *fakes.Updates) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/control/messages", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(tg.Messages())
	})
	var mu sync.Mutex
	admins := map[int64]map[int64]string{}
	var msgID atomic.Int64
	// /control/user acts as a user writing in a chat: chat (negative for a
	// group), optional thread (a forum topic), user, text.
	mux.HandleFunc("/control/user", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		chat, err := strconv.ParseInt(q.Get("chat"), 10, 64)
		if err != nil || q.Get("text") == "" {
			http.Error(w, "want chat=<id> and text=<message>, optional thread=<topic id> and user=<id>", http.StatusBadRequest)
			return
		}
		user, _ := strconv.ParseInt(q.Get("user"), 10, 64)
		if user == 0 {
			user = 1000
		}
		thread, _ := strconv.Atoi(q.Get("thread"))
		c := models.Chat{ID: chat, Type: models.ChatTypePrivate, FirstName: "Tester"}
		if chat < 0 {
			c = models.Chat{ID: chat, Type: models.ChatTypeSupergroup, Title: "Test group", IsForum: thread != 0}
			// The user acting in a group is its creator, so /start works.
			mu.Lock()
			if admins[chat] == nil {
				admins[chat] = map[int64]string{}
			}
			admins[chat][user] = "creator"
			tg.ChatMembers(copyAdmins(admins))
			mu.Unlock()
		}
		m := &models.Message{ID: int(msgID.Add(1)), Date: int(time.Now().Unix()), Chat: c, Text: q.Get("text"),
			From: &models.User{ID: user, FirstName: "Tester"}}
		if thread != 0 {
			m.MessageThreadID, m.IsTopicMessage = thread, true
		}
		if len(m.Text) > 0 && m.Text[0] == '/' {
			end := len(m.Text)
			for i, r := range m.Text {
				if r == ' ' {
					end = i
					break
				}
			}
			m.Entities = []models.MessageEntity{{Type: models.MessageEntityTypeBotCommand, Offset: 0, Length: end}}
		}
		id := updates.Push(models.Update{Message: m})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]int64{"update_id": id})
	})
	mux.Handle("/", tg)
	return mux
}

func pageMux(pg page) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/control/components", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(pg.ComponentIDs())
	})
	mux.HandleFunc("/control/component", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		name := q.Get("name")
		if name == "" {
			name = q.Get("id")
		}
		pg.SetComponent(q.Get("id"), name, q.Get("status"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/control/incident", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		pg.AddIncidentUpdate(q.Get("id"), q.Get("name"), q.Get("status"), q.Get("impact"), q.Get("update"), q.Get("body"))
		affect(w, pg, q.Get("id"), q.Get("component"), q.Get("component_status"))
	})
	// start and end (RFC 3339, optional) set the maintenance's window.
	mux.HandleFunc("/control/maintenance", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var start, end time.Time
		if q.Get("start") != "" || q.Get("end") != "" {
			var err1, err2 error
			start, err1 = time.Parse(time.RFC3339, q.Get("start"))
			end, err2 = time.Parse(time.RFC3339, q.Get("end"))
			if err1 != nil || err2 != nil || !end.After(start) {
				http.Error(w, "start and end are RFC 3339 times, end after start", http.StatusBadRequest)
				return
			}
		}
		pg.AddMaintenanceUpdate(q.Get("id"), q.Get("name"), q.Get("status"), q.Get("update"), q.Get("body"))
		affect(w, pg, q.Get("id"), q.Get("component"), "under_maintenance", func() {
			if !start.IsZero() {
				pg.SetMaintenanceWindow(q.Get("id"), start, end)
			}
		})
	})
	mux.Handle("/", pg)
	return mux
}

func copyAdmins(in map[int64]map[int64]string) map[int64]map[int64]string {
	out := make(map[int64]map[int64]string, len(in))
	for chat, users := range in {
		out[chat] = make(map[int64]string, len(users))
		for u, s := range users {
			out[chat][u] = s
		}
	}
	return out
}

// affect marks the component affected, then runs the further steps; a
// step the fake refuses (it panics) is answered 400.
func affect(w http.ResponseWriter, pg page, incident, component, status string, then ...func()) {
	defer func() {
		if r := recover(); r != nil {
			http.Error(w, fmt.Sprint(r), http.StatusBadRequest)
		}
	}()
	if component != "" {
		if status == "" {
			status = "partial_outage"
		}
		pg.AffectComponent(incident, component, status)
	}
	for _, step := range then {
		step()
	}
	w.WriteHeader(http.StatusNoContent)
}
