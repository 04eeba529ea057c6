package kubetest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/csv"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeCredentials generates the CA, the serving certificate, the
// service-account key pair and the token file in c.Dir, and sets CAFile,
// the tokens and OperatorUser.
func (c *Cluster) writeCredentials(opts Options) error {
	p := func(name string) string { return filepath.Join(c.Dir, name) }
	now := time.Now()

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kubetest-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 0, 0, 1)},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, srvKey.Public(), caKey)
	if err != nil {
		return err
	}

	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return err
	}

	if err := writePEM(p("ca.crt"), "CERTIFICATE", caDER); err != nil {
		return err
	}
	if err := writePrivateKey(p("ca.key"), caKey); err != nil {
		return err
	}
	if err := writePEM(p("apiserver.crt"), "CERTIFICATE", srvDER); err != nil {
		return err
	}
	if err := writePrivateKey(p("apiserver.key"), srvKey); err != nil {
		return err
	}
	if err := writePEM(p("sa.key"), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)); err != nil {
		return err
	}
	if err := writePEM(p("sa.pub"), "PUBLIC KEY", saPub); err != nil {
		return err
	}
	c.CAFile = p("ca.crt")

	if c.AdminToken, err = randomToken(); err != nil {
		return err
	}
	if c.OperatorToken, err = randomToken(); err != nil {
		return err
	}
	ns, sa := opts.OperatorNamespace, opts.OperatorServiceAccount
	c.OperatorUser = "system:serviceaccount:" + ns + ":" + sa
	var b strings.Builder
	w := csv.NewWriter(&b)
	// token,user,uid,"group1,group2"
	_ = w.Write([]string{c.AdminToken, "admin", "admin-uid", "system:masters,system:authenticated"})
	_ = w.Write([]string{c.OperatorToken, c.OperatorUser, "operator-uid",
		"system:serviceaccounts,system:serviceaccounts:" + ns + ",system:authenticated"})
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return os.WriteFile(p("tokens.csv"), []byte(b.String()), 0o600)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}

func writePrivateKey(path string, key crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der)
}

func writeKubeconfig(path, host, caFile, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubetest"] = &clientcmdapi.Cluster{Server: host, CertificateAuthority: caFile}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[user] = &clientcmdapi.Context{Cluster: "kubetest", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = user
	return clientcmd.WriteToFile(*cfg, path)
}

// WriteKindKubeconfig writes an admin kubeconfig laid out as kind writes
// one: the CA, a client certificate (CN kubernetes-admin, group
// system:masters, signed by the cluster's CA) and its key, all inline
// (*-data), and no token. kubernetes.core's integration targets read it
// so (setup_kubeconfig copies the client certificate files the Python
// client makes of it; k8s_info deletes the CA line to break TLS).
func (c *Cluster) WriteKindKubeconfig(path string) error {
	caPEM, err := os.ReadFile(filepath.Join(c.Dir, "ca.crt"))
	if err != nil {
		return err
	}
	keyPEM, err := os.ReadFile(filepath.Join(c.Dir, "ca.key"))
	if err != nil {
		return err
	}
	cb, _ := pem.Decode(caPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return fmt.Errorf("kubetest: cannot read the cluster's CA")
	}
	caCert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return err
	}
	caKey, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, key.Public(), caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kind-kubetest"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["kind-kubetest"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		ClientKeyData:         pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
	cfg.Contexts["kind-kubetest"] = &clientcmdapi.Context{Cluster: "kind-kubetest", AuthInfo: "kind-kubetest"}
	cfg.CurrentContext = "kind-kubetest"
	return clientcmd.WriteToFile(*cfg, path)
}
