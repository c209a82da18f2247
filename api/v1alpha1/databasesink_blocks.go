package v1alpha1

// PostgresSink holds the settings of a postgres sink. Secret keys: dsn or
// uri (a connection string).
type PostgresSink struct {
	// databaseRef names the Secret key holding the connection string when
	// it is not the dsn or uri key of secretRef's Secret.
	// +optional
	DatabaseRef *DatabaseSecretReference `json:"databaseRef,omitempty"`

	// schema of the table (default public).
	// +optional
	// +kubebuilder:default=public
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	Schema string `json:"schema,omitempty"`

	// table receiving the rows. With provisioning mode ensure it is created
	// with the columns of the export contract; rows are keyed by cluster,
	// inventory, target and source uid, so inventories and clusters can
	// share one table.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	Table string `json:"table"`

	// history keeps every revision next to the current rows: a table named
	// after table with the suffix _history (shortened with a hash past 63
	// characters) holding each version of each row with the revisions and
	// times it was valid, and one with the suffix _revisions listing each
	// revision with its checksum, both written in the export's transaction.
	// With provisioning mode existing both tables must exist.
	// +optional
	History *TableHistory `json:"history,omitempty"`
}

// TableHistory turns a database sink's history tables on.
type TableHistory struct {
	// enabled writes the history tables (default false).
	// +optional
	Enabled bool `json:"enabled,omitempty"`
}

// MongoDBSink holds the settings of a mongodb sink. Secret keys: uri or dsn
// (a connection string).
type MongoDBSink struct {
	// databaseRef names the Secret key holding the connection string when
	// it is not the uri or dsn key of secretRef's Secret.
	// +optional
	DatabaseRef *DatabaseSecretReference `json:"databaseRef,omitempty"`

	// database holding the collection.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[^/\\. "$*<>:|?]+$`
	Database string `json:"database"`

	// collection receiving one document per row. With provisioning mode
	// ensure a unique index on the row identity is created.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=120
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_.-]*$`
	Collection string `json:"collection"`
}

// DefaultDatabaseRefKey is the key of a databaseRef without one.
const DefaultDatabaseRefKey = "dsn"

// DatabaseSecretReference names the Secret key holding a database
// connection string.
type DatabaseSecretReference struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the Secret, default the sink's. Another namespace is
	// refused unless the operator allows cross-namespace Secret references
	// (--allow-cross-namespace-secret-refs).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// key in the Secret's data (default dsn).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// BigQuerySink holds the settings of a bigquery sink.
type BigQuerySink struct {
	// secretRef is the established spelling of spec.secretRef (the Secret
	// holding credentials.json), normalised to it; set one or the other,
	// not both.
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`

	// project holding the dataset, default the credentials' project.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[a-z][-a-z0-9.:]*[a-z0-9]$`
	Project string `json:"project,omitempty"`

	// dataset holding the table.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_]+$`
	Dataset string `json:"dataset"`

	// table receiving the rows; with provisioning mode ensure it is created
	// day-partitioned on exported_at and clustered on cluster and inventory.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]+$`
	Table string `json:"table"`

	// location of the dataset (for example EU or us-central1), used when
	// it is created and for jobs. Default the dataset's location.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9-]+$`
	Location string `json:"location,omitempty"`

	// history keeps every revision next to the current rows: a table named
	// after table with the suffix _history holding each version of each row
	// with the revisions and times it was valid, and one with the suffix
	// _revisions listing each revision with its checksum, written with the
	// export's statements (in its transaction). With provisioning mode
	// existing both tables must exist.
	// +optional
	History *TableHistory `json:"history,omitempty"`
}
