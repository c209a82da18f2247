package command

import (
	"fmt"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/services/cli/internal/verify"
)

// objectFlags are the flags verify s3 and verify gcs share.
type objectFlags struct {
	bucket, prefix, cluster, inventory string
}

func (f *objectFlags) bind(cmd *cobra.Command, store string) {
	cmd.Flags().StringVar(&f.bucket, "bucket", "", "the sink's bucket (spec."+store+".bucket)")
	cmd.Flags().StringVar(&f.prefix, "prefix", "", "the sink's key prefix (spec."+store+".prefix), none by default")
	cmd.Flags().StringVar(&f.cluster, "cluster", "default", "the sink's spec.cluster")
	cmd.Flags().StringVar(&f.inventory, "inventory", "", "the inventory, NAMESPACE/NAME (a NAME alone for a ClusterInventory)")
}

func (f *objectFlags) check() error {
	if f.bucket == "" || f.inventory == "" {
		return &climain.ExitError{Code: 2, Err: fmt.Errorf("--bucket and --inventory are required")}
	}
	return nil
}

func (f *objectFlags) objects(store verify.Store, scheme string) verify.Objects {
	return verify.Objects{Store: store, URL: scheme + "://" + f.bucket, Prefix: f.prefix, Cluster: f.cluster,
		Inventory: inventoryName(f.inventory)}
}

func newVerifyS3Command(s Streams) *cobra.Command {
	var f objectFlags
	var endpoint, region string
	cmd := &cobra.Command{
		Use:   "s3 --bucket BUCKET --cluster CLUSTER --inventory [NAMESPACE/]NAME",
		Short: "Verify every revision an S3 sink with format parquet keeps for an inventory",
		Long: "Reads every revision=<n>.parquet file of the inventory's folder in the bucket, rebuilds its rows,\n" +
			"recomputes its checksum and compares it with the file's kollect.checksum metadata, and follows the\n" +
			"kollect.previousChecksum chain. Credentials come from the default AWS configuration (environment,\n" +
			"shared files, IRSA or an instance role); --endpoint names an S3-compatible server (path-style).",
		Example: "  kollect verify s3 --bucket data-lake --prefix kollect --cluster prod-eu-1 --inventory team-a/web\n" +
			"  kollect verify s3 --endpoint https://minio.example.com --bucket inv --cluster dev --inventory team-a/web",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			store, err := verify.NewS3(cmd.Context(), f.bucket, endpoint, region)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			return runVerify(cmd.Context(), s, f.objects(store, "s3"))
		},
	}
	f.bind(cmd, "s3")
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "an S3-compatible server's URL (spec.s3.endpoint), addressed path-style")
	cmd.Flags().StringVar(&region, "region", "", "the bucket's region (default the AWS configuration's)")
	return cmd
}

func newVerifyGCSCommand(s Streams) *cobra.Command {
	var f objectFlags
	cmd := &cobra.Command{
		Use:   "gcs --bucket BUCKET --cluster CLUSTER --inventory [NAMESPACE/]NAME",
		Short: "Verify every revision a GCS sink with format parquet keeps for an inventory",
		Long: "Reads every revision=<n>.parquet file of the inventory's folder in the bucket, rebuilds its rows,\n" +
			"recomputes its checksum and compares it with the file's kollect.checksum metadata, and follows the\n" +
			"kollect.previousChecksum chain. Credentials are Application Default Credentials (read-only scope);\n" +
			"STORAGE_EMULATOR_HOST points the client at an emulator.",
		Example: "  kollect verify gcs --bucket data-lake --prefix kollect --cluster prod-eu-1 --inventory team-a/web",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			store, err := verify.NewGCS(cmd.Context(), f.bucket)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			defer func() { _ = store.Close() }()
			return runVerify(cmd.Context(), s, f.objects(store, "gs"))
		},
	}
	f.bind(cmd, "gcs")
	return cmd
}
