package compose

import (
	"github.com/pricewatch/pricewatch/daemon"
	"github.com/pricewatch/pricewatch/leader"
)

// Elector is the leader election among the daemon's replicas: with
// database.url (PostgreSQL) an election on that database, on a connection
// of its own; with SQLite none (nil: the one process always leads).
func (w *Wiring) Elector() (daemon.Elector, error) {
	if !w.Config.Database.UsesPostgres() {
		return nil, nil
	}
	dsn, err := w.Config.DatabaseTarget()
	if err != nil {
		return nil, err
	}
	e, err := leader.NewPostgres(leader.Options{DSN: dsn, Config: w.Config.HA, Log: w.Log.Named("leader")})
	if err != nil {
		return nil, err
	}
	return e, nil
}
