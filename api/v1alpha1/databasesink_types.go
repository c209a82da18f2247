package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DatabaseSinkType is the kind of database a database sink writes rows to.
// +kubebuilder:validation:Enum=postgres;mongodb;bigquery
type DatabaseSinkType string

// Database sink types.
const (
	DatabasePostgres DatabaseSinkType = "postgres"
	DatabaseMongoDB  DatabaseSinkType = "mongodb"
	DatabaseBigQuery DatabaseSinkType = "bigquery"
)

// KollectDatabaseSinkSpec describes a database table or collection that
// receives one row (document) per collected object.
//
// +kubebuilder:validation:XValidation:rule="!has(self.postgres) || self.type == 'postgres'",message="postgres is allowed only when type is postgres",fieldPath=".postgres"
// +kubebuilder:validation:XValidation:rule="!has(self.mongodb) || self.type == 'mongodb'",message="mongodb is allowed only when type is mongodb",fieldPath=".mongodb"
// +kubebuilder:validation:XValidation:rule="!has(self.bigquery) || self.type == 'bigquery'",message="bigquery is allowed only when type is bigquery",fieldPath=".bigquery"
// +kubebuilder:validation:XValidation:rule="self.type != 'postgres' || has(self.postgres)",message="postgres is required when type is postgres (postgres.table has no default)",fieldPath=".postgres"
// +kubebuilder:validation:XValidation:rule="self.type != 'mongodb' || has(self.mongodb)",message="mongodb is required when type is mongodb (mongodb.database and collection have no default)",fieldPath=".mongodb"
// +kubebuilder:validation:XValidation:rule="self.type != 'bigquery' || has(self.bigquery)",message="bigquery is required when type is bigquery (bigquery.dataset and table have no default)",fieldPath=".bigquery"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || self.type != 'postgres' || self.endpoint.matches('^postgres(ql)?://')",message="a postgres endpoint must be a postgres:// or postgresql:// URL",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || self.type != 'mongodb' || self.endpoint.matches('^mongodb([+]srv)?://')",message="a mongodb endpoint must be a mongodb:// or mongodb+srv:// URL",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || self.type != 'bigquery' || self.endpoint.matches('^https?://')",message="a bigquery endpoint must be an http(s):// URL",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="self.type == 'bigquery' || has(self.endpoint) || has(self.secretRef) || (has(self.postgres) && has(self.postgres.databaseRef)) || (has(self.mongodb) && has(self.mongodb.databaseRef))",message="postgres and mongodb sinks need an endpoint, a secretRef or a databaseRef to find the server",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.bigquery) || !has(self.bigquery.secretRef) || !has(self.secretRef)",message="set secretRef or bigquery.secretRef (its established spelling), not both",fieldPath=".bigquery.secretRef"
type KollectDatabaseSinkSpec struct {
	// type is postgres, mongodb or bigquery.
	// +required
	Type DatabaseSinkType `json:"type"`

	// endpoint locates the server; it never carries credentials.
	//   - postgres: postgres://host:5432/database?sslmode=verify-full.
	//   - mongodb: mongodb://host:27017 or mongodb+srv://cluster.example.com.
	//   - bigquery: an API endpoint override (emulators); default Google's.
	// For postgres and mongodb the connection string may instead come whole
	// from the Secret (key dsn or uri, or the key databaseRef names); when
	// both are present the Secret supplies the credentials and the endpoint
	// everything else. The address is checked against private and
	// link-local ranges at admission and on every connection.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^https?://[^/]*@') && !self.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@')",message="endpoint must not carry credentials; put them in the Secret named by secretRef"
	Endpoint string `json:"endpoint,omitempty"`

	SinkCommon `json:",inline"`

	// serialization of row payloads; databases take json only.
	// +optional
	Serialization *JSONSerialization `json:"serialization,omitempty"`

	// postgres holds settings of type postgres; required for that type.
	// +optional
	Postgres *PostgresSink `json:"postgres,omitempty"`

	// mongodb holds settings of type mongodb; required for that type.
	// +optional
	MongoDB *MongoDBSink `json:"mongodb,omitempty"`

	// bigquery holds settings of type bigquery; required for that type.
	// Secret key: credentials.json; without secretRef the default
	// credentials.
	// +optional
	BigQuery *BigQuerySink `json:"bigquery,omitempty"`
}

// JSONSerialization is the serialization of sinks that only take JSON.
type JSONSerialization struct {
	// format is json, the only format of database and event sinks.
	// +optional
	// +kubebuilder:validation:Enum=json
	Format string `json:"format,omitempty"`
}

// KollectDatabaseSink is a PostgreSQL table, MongoDB collection or BigQuery
// table that holds one row per collected object of each bound inventory,
// kept equal to the latest snapshot.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kdb,categories=kollect
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Verified",type=string,JSONPath=`.status.conditions[?(@.type=="ConnectionVerified")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectDatabaseSink struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the database.
	// +required
	Spec KollectDatabaseSinkSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status SinkStatus `json:"status,omitempty"`
}

// KollectDatabaseSinkList is a list of KollectDatabaseSinks.
// +kubebuilder:object:root=true
type KollectDatabaseSinkList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the database sinks.
	Items []KollectDatabaseSink `json:"items"`
}
