package action

import (
	"errors"
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// loadChart loads the sylva-units chart --chart names (name as given, at
// path), the one way every command loads it. A chart that does not load
// (fileio.CheckChart refuses it, or Helm's loader does) is refused in
// one message naming the flag, the reason and the fix; of
// says which chart the command wants ("" for any sylva-units chart, or
// " of --to").
func loadChart(name, path, of string) (*helmengine.Chart, error) {
	var c *helmengine.Chart
	err := fileio.CheckChart(path)
	if err == nil {
		c, err = helmengine.LoadChart(path)
	}
	var le *helmengine.LoadError
	if errors.As(err, &le) {
		err = le.Err
	}
	if err != nil {
		return nil, fmt.Errorf("--chart %s: %w; give the sylva-units chart directory%s (charts/sylva-units of a sylva-core checkout) or its archive", name, err, of)
	}
	return c, nil
}
