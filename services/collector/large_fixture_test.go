package collector_test

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// largeDeployment is a Deployment as teams write them and kubectl apply
// leaves them: two containers with env, resources, probes and mounts, and
// the last-applied annotation; the API server adds managedFields. About
// 6 KB as served.
func largeDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "shop",
		"app.kubernetes.io/version": "1.4.2", "team": "checkout"}
	container := func(cname, image string, port int32) corev1.Container {
		var env []corev1.EnvVar
		for i := range 12 {
			env = append(env, corev1.EnvVar{Name: fmt.Sprintf("SETTING_%02d", i), Value: fmt.Sprintf("value-%02d-%s", i, name)})
		}
		return corev1.Container{
			Name: cname, Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
			Args:  []string{"--log-level=info", "--listen=:8080", "--metrics=:9090"},
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port}, {Name: "metrics", ContainerPort: 9090}},
			Env:   env,
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
			},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: "/ready", Port: intstr.FromString("http")}}, PeriodSeconds: 5},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: "/healthz", Port: intstr.FromString("http")}}, InitialDelaySeconds: 10},
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}, {Name: "tmp", MountPath: "/tmp"}},
		}
	}
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"prometheus.io/scrape": "true"}},
				Spec: corev1.PodSpec{
					ServiceAccountName: name,
					Containers: []corev1.Container{container("app", "registry.example.com/shop/"+name+":1.4.2", 8080),
						container("sidecar", "registry.example.com/proxy:2.0", 8081)},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
						LocalObjectReference: corev1.LocalObjectReference{Name: name + "-config"}}}},
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
	applied, _ := json.Marshal(d)
	d.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied)}
	d.TypeMeta = metav1.TypeMeta{}
	return d
}
