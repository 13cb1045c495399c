// Command fakeapis serves a fake Telegram Bot API and a fake Statuspage on
// loopback, for trying the bot (make run) where the real ones are out of
// reach. Point TELEGRAM_API_URL and STATUSPAGE_URL at it.
//
//	fakeapis -telegram 127.0.0.1:8081 -statuspage 127.0.0.1:8082 -token "$TELEGRAM_BOT_TOKEN"
//	curl -X POST '127.0.0.1:8082/control/component?id=api0000001&status=major_outage'
//	curl '127.0.0.1:8081/control/messages'
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/openai-status-bot/statusbot/internal/fakes"
)

func main() {
	tgAddr := flag.String("telegram", "127.0.0.1:8081", "address of the fake Bot API")
	pageAddr := flag.String("statuspage", "127.0.0.1:8082", "address of the fake status page")
	token := flag.String("token", os.Getenv("TELEGRAM_BOT_TOKEN"), "bot token the fake accepts")
	flag.Parse()

	tg := fakes.NewTelegram(*token)
	fakes.NewUpdates(tg, 1)
	page := fakes.NewStatuspage()

	tgMux := http.NewServeMux()
	tgMux.HandleFunc("/control/messages", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(tg.Messages())
	})
	tgMux.Handle("/", tg)
	pageMux := http.NewServeMux()
	pageMux.HandleFunc("/control/component", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		name := q.Get("name")
		if name == "" {
			name = q.Get("id")
		}
		page.SetComponent(q.Get("id"), name, q.Get("status"))
		w.WriteHeader(http.StatusNoContent)
	})
	pageMux.HandleFunc("/control/incident", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page.AddIncidentUpdate(q.Get("id"), q.Get("name"), q.Get("status"), q.Get("impact"), q.Get("update"), q.Get("body"))
		w.WriteHeader(http.StatusNoContent)
	})
	pageMux.Handle("/", page)

	go func() { log.Fatal(http.ListenAndServe(*pageAddr, pageMux)) }()
	log.Printf("fake Telegram on http://%s, fake status page on http://%s", *tgAddr, *pageAddr)
	log.Fatal(http.ListenAndServe(*tgAddr, tgMux))
}
