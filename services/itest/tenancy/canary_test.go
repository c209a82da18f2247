package tenancy

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
)

// runID makes this run's canaries unique, so that a canary found anywhere
// can only come from this run.
var runID = rand.Text()[:12]

// canary returns the canary value labelled label.
func canary(label string) string { return "CANARY-" + label + "-" + runID }

// The canary values. team-b's are another tenant's: no part of Kollect
// acting for team-a may ever hold them. team-a's own are values team-a may
// collect but that redaction must remove before export. The rest stand for
// what the exporter process holds: its ambient cloud identity and a local
// file (its ServiceAccount token).
var (
	victimToken       = canary("SECRET-TOKEN")
	victimUser        = canary("SECRET-USER")
	victimPassword    = canary("SECRET-PASSWORD")
	victimDSNUser     = canary("SECRET-DSNUSER")
	victimDSNPassword = canary("SECRET-DSNPASSWORD")
	victimAccessKey   = canary("SECRET-ACCESSKEY")
	victimSecretKey   = canary("SECRET-SECRETKEY")
	victimEnv         = canary("ENV")
	victimURL         = canary("URL")
	victimAWS         = canary("AWS")
	victimArgs        = canary("ARGS")

	ownEnv    = canary("OWN-ENV")
	ownURL    = canary("OWN-URL")
	ownAWS    = canary("OWN-AWS")
	ownArgs   = canary("OWN-ARGS")
	ownSecret = canary("OWN-SECRET")
	// ownEncoded is inside gzip and base64 values of team-a's ConfigMap.
	ownEncoded = canary("OWN-ENCODED")
	// teamToken is a token in team-a's Secret db-creds, which bob may not
	// read (F6).
	teamToken = canary("TEAM-TOKEN")

	ambientAccessKey = canary("AMBIENT-AKID")
	ambientSecretKey = canary("AMBIENT-AWSSECRET")
	ambientGCSEmail  = canary("AMBIENT-GCS")
	localFile        = canary("FILE")
)

// allCanaries lists every canary value the sweep looks for.
func allCanaries() []string {
	return []string{
		victimToken, victimUser, victimPassword, victimDSNUser, victimDSNPassword, victimAccessKey, victimSecretKey,
		victimEnv, victimURL, victimAWS, victimArgs,
		ownEnv, ownURL, ownAWS, ownArgs, ownSecret, ownEncoded, teamToken,
		ambientAccessKey, ambientSecretKey, ambientGCSEmail, localFile, tokenResponse, victimLabel,
	}
}

// localFilePath is the file standing for the exporter's ServiceAccount
// token: external_account credentials point at it.
var localFilePath string

// ambientTokenURL is where the ambient GCS identity fetches its tokens: the
// token recorder, whose address is chosen before it starts.
var ambientTokenURL string

// setAmbientIdentity gives the test process, and so the in-process
// exporters, an ambient cloud identity made of canaries: AWS keys in the
// environment (the S3 default chain) and a service_account key as GCS
// application default credentials whose token_uri is the token recorder.
// It also writes the local file external_account credentials point at.
func setAmbientIdentity(dir string) error {
	localFilePath = filepath.Join(dir, "serviceaccount-token")
	if err := os.WriteFile(localFilePath, []byte(localFile), 0o600); err != nil {
		return fmt.Errorf("write the local file canary: %w", err)
	}
	tokens, err := reserveTokenRecorder()
	if err != nil {
		return err
	}
	ambientTokenURL = tokens
	key, err := serviceAccountKey(ambientGCSEmail+"@tenancy.iam.gserviceaccount.com", ambientTokenURL+"/ambient/token")
	if err != nil {
		return err
	}
	adc := filepath.Join(dir, "application_default_credentials.json")
	if err := os.WriteFile(adc, key, 0o600); err != nil {
		return fmt.Errorf("write application default credentials: %w", err)
	}
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": ambientAccessKey, "AWS_SECRET_ACCESS_KEY": ambientSecretKey, "AWS_REGION": "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"GOOGLE_APPLICATION_CREDENTIALS": adc, "GOOGLE_CLOUD_PROJECT": "tenancy",
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return os.Unsetenv("STORAGE_EMULATOR_HOST")
}
