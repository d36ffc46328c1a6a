package reconciler

import "gitlab.com/sylva-projects/sylva-planner/status"

// RequestValue returns the pending request value of obs and where it comes
// from (status.RequestOf): the value the tracking annotation records, not
// the token bound to the status write that is passed on
// (Decision.Request).
func RequestValue(obs status.Observation) (string, RequestSource, error) {
	r, err := status.RequestOf(obs)
	if err != nil {
		return "", "", err
	}
	return r.Value, r.Source, nil
}
