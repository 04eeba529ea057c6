package demo

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
)

// checkSecrets looks for the Cloudflare API token and every service-token
// client secret the operator stored in the demo's output and in each tier's
// log. None may appear.
func (d *demo) checkSecrets(ctx context.Context) error {
	secrets := map[string]string{"the Cloudflare API token": d.sim.Token}
	items, err := list(ctx, d.dyn, gvrSecret, "")
	if err != nil {
		return err
	}
	for _, s := range items {
		if s.GetLabels()["app.kubernetes.io/managed-by"] != "cfzt-operator" {
			continue
		}
		data, _ := s.Object["data"].(map[string]any)
		if enc, ok := data["client_secret"].(string); ok {
			raw, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				return fmt.Errorf("secret %s: %w", objectKey(&s), err)
			}
			secrets["the client secret in "+objectKey(&s)] = string(raw)
		}
	}
	texts := map[string]string{"the demo's output": d.record.String()}
	for _, t := range tiers {
		texts[t+"'s log"] = strings.Join(d.logs.all(t), "\n")
	}
	var leaks []string
	for what, value := range secrets {
		if len(value) < 8 {
			continue
		}
		for where, text := range texts {
			if strings.Contains(text, value) {
				leaks = append(leaks, what+" appears in "+where)
			}
		}
	}
	if len(leaks) > 0 {
		return fmt.Errorf("secrets leaked: %s", strings.Join(leaks, "; "))
	}
	d.say("checked %d secrets against %d outputs: none found", len(secrets), len(texts))
	return nil
}
