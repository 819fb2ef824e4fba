/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The store shared through git remotes with libgit2 (see share.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <nettle/base64.h>
#include <nettle/hmac.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "autoconfig.h"
#include "config.h"
#include "durable.h"
#include "profiles.h"
#include "share.h"
#include "store.h"
#include "store_scan.h"

#ifdef HAVE_LIBGIT2
#include <git2.h>

#define LOCAL_REF   "refs/perun/profiles"
#define FORMAT_FILE "perun-store"
/* A push whose remote keeps moving gives up after this many tries. */
#define PUSH_TRIES 40

struct share {
	struct perun_instance *inst;
	git_repository *repo;
	git_remote *remote;
	char name[256];		   /* as the user named the remote */
	char track[400];	   /* refs/perun/remotes/<remote>/profiles */
	char *objects;		   /* .perun/objects */
	char local_path[PATH_MAX]; /* a remote on this machine, or "" */
	int cred_tries;
	size_t sent_objects, sent_bytes;
	unsigned rejected;
};

PERUN_PRINTF(3, 4)
static int git_fail(struct perun_error *err, int code, const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "unknown git error";
	/* One line: libgit2's messages may carry a newline. */
	char line[1024];
	snprintf(line, sizeof(line), "%s", msg);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	size_t n = strlen(line);
	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	return perun_error_set(err, code, "%s: %s", what, line);
}

/* A remote given as a URL or a path rather than a remote's name. */
static int looks_like_location(const char *s)
{
	return strchr(s, '/') || strchr(s, ':') || !strcmp(s, ".") || !strcmp(s, "..");
}

/* The remote's directory when it is on this machine (file:// or a path). */
static void local_path_of(const char *url, char *out, size_t len)
{
	out[0] = '\0';
	if (!strncmp(url, "file://", 7)) {
		snprintf(out, len, "%s", url + 7);
		return;
	}
	if (strstr(url, "://"))
		return;
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
	if (colon && (!slash || colon < slash))
		return; /* host:path, as scp writes it */
	snprintf(out, len, "%s", url);
}

/* Is url one git reaches over ssh (ssh://, git+ssh://, host:path)? */
static int is_ssh_url(const char *url)
{
	if (!strncmp(url, "ssh://", 6) || !strncmp(url, "git+ssh://", 10) ||
	    !strncmp(url, "ssh+git://", 10))
		return 1;
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
	return !strstr(url, "://") && colon && (!slash || colon < slash);
}

/* The host and port of an ssh URL, as known_hosts names it: "host" on
 * port 22, else "[host]:port". */
static void known_hosts_name(const char *url, char *out, size_t len)
{
	const char *p = strstr(url, "://"), *end;
	int scp = !p;
	p = p ? p + 3 : url;
	end = p + strcspn(p, scp ? ":" : "/");
	const char *at = memchr(p, '@', (size_t)(end - p));
	if (at)
		p = at + 1;
	const char *host = p, *host_end = end, *port = NULL;
	if (*p == '[' && (host_end = memchr(p, ']', (size_t)(end - p)))) {
		host = p + 1;
		port = host_end[1] == ':' ? host_end + 2 : NULL;
	} else if (!scp && (port = memchr(p, ':', (size_t)(end - p)))) {
		host_end = port++;
	} else {
		host_end = end;
	}
	int n = (int)(host_end - host), plen = port ? (int)(end - port) : 0;
	if (!port || (plen == 2 && !strncmp(port, "22", 2)))
		snprintf(out, len, "%.*s", n, host);
	else
		snprintf(out, len, "[%.*s]:%.*s", n, host, plen, port);
}

/* Does a known_hosts host pattern list (plain names or one "|1|salt|hash"
 * of OpenSSH's HashKnownHosts) name host? */
static int known_hosts_names(const char *list, size_t len, const char *host)
{
	if (len > 3 && !strncmp(list, "|1|", 3)) {
		char salt64[64], hash64[64];
		const char *bar = memchr(list + 3, '|', len - 3);
		if (!bar || (size_t)(bar - list - 3) >= sizeof(salt64) ||
		    (size_t)(list + len - bar - 1) >= sizeof(hash64))
			return 0;
		snprintf(salt64, sizeof(salt64), "%.*s", (int)(bar - list - 3), list + 3);
		snprintf(hash64, sizeof(hash64), "%.*s", (int)(list + len - bar - 1), bar + 1);
		uint8_t salt[64], digest[SHA1_DIGEST_SIZE];
		char mine[BASE64_ENCODE_RAW_LENGTH(SHA1_DIGEST_SIZE) + 1];
		size_t salt_len = sizeof(salt);
		struct base64_decode_ctx b64;
		base64_decode_init(&b64);
		if (!base64_decode_update(&b64, &salt_len, salt, strlen(salt64), salt64) ||
		    !base64_decode_final(&b64))
			return 0;
		struct hmac_sha1_ctx mac;
		hmac_sha1_set_key(&mac, salt_len, salt);
		hmac_sha1_update(&mac, strlen(host), (const uint8_t *)host);
		hmac_sha1_digest(&mac, sizeof(digest), digest);
		base64_encode_raw(mine, sizeof(digest), digest);
		mine[BASE64_ENCODE_RAW_LENGTH(SHA1_DIGEST_SIZE)] = '\0';
		return !strcmp(mine, hash64);
	}
	for (const char *p = list; p < list + len;) {
		size_t n = strcspn(p, ",");
		if (p + n > list + len)
			n = (size_t)(list + len - p);
		if (n == strlen(host) && !strncmp(p, host, n))
			return 1;
		p += n + 1;
	}
	return 0;
}

/* Look host's key up in a known_hosts file: 1 when a line has this key
 * for it, -1 when lines name the host with other keys only, else 0. */
static int known_hosts_check(const char *file, const char *host, const char *key64)
{
	FILE *f = fopen(file, "r");
	char line[16384];
	int found = 0;
	while (f && found != 1 && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || *p == '@' || !*p)
			continue; /* markers (@revoked, @cert-authority): not taken */
		size_t hl = strcspn(p, " \t");
		char *type = p + hl + strspn(p + hl, " \t");
		char *key = type + strcspn(type, " \t");
		key += strspn(key, " \t");
		key[strcspn(key, " \t\r\n")] = '\0';
		if (known_hosts_names(p, hl, host))
			found = !strcmp(key, key64) ? 1 : -1;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * The ssh host key, checked as ssh checks it: libgit2 found it in
 * ~/.ssh/known_hosts (valid), or the system's /etc/ssh/ssh_known_hosts
 * has it.  Anything else is refused with a line saying what to do; the
 * certificates of https are libgit2's to judge.
 */
static int on_certificate(git_cert *cert, int valid, const char *host, void *payload)
{
	struct share *s = payload;
	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH;
	if (valid)
		return 0;
	const git_cert_hostkey *hk = (const git_cert_hostkey *)cert;
	char name[300], *key64 = NULL;
	known_hosts_name(git_remote_url(s->remote), name, sizeof(name));
	int known = 0;
	if ((hk->type & GIT_CERT_SSH_RAW) &&
	    (key64 = malloc(BASE64_ENCODE_RAW_LENGTH(hk->hostkey_len) + 1))) {
		base64_encode_raw(key64, hk->hostkey_len, (const uint8_t *)hk->hostkey);
		key64[BASE64_ENCODE_RAW_LENGTH(hk->hostkey_len)] = '\0';
		char user[PATH_MAX];
		const char *home = getenv("HOME");
		snprintf(user, sizeof(user), "%s/.ssh/known_hosts", home ? home : "");
		known = known_hosts_check("/etc/ssh/ssh_known_hosts", name, key64);
		if (known != 1 && home && known_hosts_check(user, name, key64) == -1)
			known = -1;
		free(key64);
	}
	if (known == 1)
		return 0;
	if (known == -1)
		git_error_set(GIT_ERROR_SSH,
			      "the ssh host key of %s is not the one known_hosts has for it "
			      "(a changed key, or someone in between): refused",
			      name);
	else
		git_error_set(GIT_ERROR_SSH,
			      "the ssh host key of %s is unknown: it is in neither "
			      "~/.ssh/known_hosts nor /etc/ssh/ssh_known_hosts (ssh to it once "
			      "to check and accept it)",
			      name);
	return GIT_ECERTIFICATE;
}

/* The user ssh logs in as when the URL names none: the local one. */
static const char *ssh_user(const char *user)
{
	const struct passwd *pw = user ? NULL : getpwuid(getuid());
	return user ? user : pw && pw->pw_name ? pw->pw_name : "git";
}

static int on_credentials(git_credential **out, const char *url, const char *user,
			  unsigned int allowed, void *payload)
{
	struct share *s = payload;
	if (s->cred_tries++ >= 3) {
		git_error_set_str(GIT_ERROR_NET, "authentication failed");
		return GIT_EAUTH;
	}
	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(out, ssh_user(user));
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !getenv("SSH_AUTH_SOCK")) {
		git_error_set_str(GIT_ERROR_SSH,
				  "no ssh agent to authenticate with "
				  "(SSH_AUTH_SOCK is not set): start one and ssh-add "
				  "a key");
		return GIT_EAUTH;
	}
	if (allowed & GIT_CREDENTIAL_SSH_KEY)
		return git_credential_ssh_key_from_agent(out, ssh_user(user));
	if (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) {
		/* What git's credential helpers know, through git itself;
		 * the URL goes by the environment, never through a shell's
		 * parsing. */
		char got_user[512] = "", got_pass[512] = "", line[512];
		setenv("PERUN_CREDENTIAL_URL", url, 1);
		FILE *p = popen("printf 'url=%s\\n\\n' \"$PERUN_CREDENTIAL_URL\" | "
				"GIT_TERMINAL_PROMPT=0 git credential fill 2>/dev/null",
				"r");
		while (p && fgets(line, sizeof(line), p)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "username=", 9))
				snprintf(got_user, sizeof(got_user), "%s", line + 9);
			else if (!strncmp(line, "password=", 9))
				snprintf(got_pass, sizeof(got_pass), "%s", line + 9);
		}
		if (p)
			pclose(p);
		unsetenv("PERUN_CREDENTIAL_URL");
		if (got_user[0] || got_pass[0])
			return git_credential_userpass_plaintext_new(out, got_user, got_pass);
	}
	if (allowed & GIT_CREDENTIAL_DEFAULT)
		return git_credential_default_new(out);
	git_error_set_str(GIT_ERROR_NET, "authentication required, and neither git's "
					 "credential helpers nor an ssh agent gave credentials");
	return GIT_EAUTH;
}

static int on_push_update(const char *refname, const char *status, void *payload)
{
	struct share *s = payload;
	if (status)
		s->rejected++;
	return 0;
}

static int on_push_progress(unsigned int current, unsigned int total, size_t bytes, void *payload)
{
	struct share *s = payload;
	s->sent_objects = total;
	s->sent_bytes = bytes;
	return 0;
}

static git_remote_callbacks callbacks(struct share *s)
{
	git_remote_callbacks cb;
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	cb.credentials = on_credentials;
	cb.certificate_check = on_certificate;
	cb.push_update_reference = on_push_update;
	cb.push_transfer_progress = on_push_progress;
	cb.payload = s;
	return cb;
}

static void share_close(struct share *s)
{
	git_remote_free(s->remote);
	git_repository_free(s->repo);
	free(s->objects);
	git_libgit2_shutdown();
}

static int share_open(struct share *s, struct perun_instance *inst, const char *remote,
		      struct perun_error *err)
{
	memset(s, 0, sizeof(*s));
	s->inst = inst;
	git_libgit2_init();
	s->objects = perun_instance_path(inst, "objects");
	if (git_repository_open_ext(&s->repo, inst->root, 0, NULL))
		return perun_error_set(err, PERUN_EINVAL,
				       "cannot share profiles: '%s' is not in a git repository",
				       inst->root);
	if (!remote)
		remote = perun_config_lookup_string(&inst->config, "share.remote", "origin");
	snprintf(s->name, sizeof(s->name), "%s", remote);
	int rc = git_remote_lookup(&s->remote, s->repo, remote);
	if (rc && looks_like_location(remote))
		rc = git_remote_create_anonymous(&s->remote, s->repo, remote);
	else if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
		return perun_error_set(err, PERUN_ENOTFOUND,
				       "no git remote '%s' (add it with: git remote add %s <url>)",
				       remote, remote);
	if (rc)
		return git_fail(err, PERUN_EINVAL, "remote '%s'", remote);
	/* The tracking ref: the name with anything a ref may not hold
	 * (a URL's slashes and colons, dots) made '_'. */
	char safe[256];
	size_t i = 0;
	for (const char *p = remote; *p && i + 1 < sizeof(safe); p++)
		safe[i++] = (isalnum((unsigned char)*p) || *p == '-' || *p == '_') ? *p : '_';
	safe[i] = '\0';
	snprintf(s->track, sizeof(s->track), "refs/perun/remotes/%s/profiles", safe);
	local_path_of(git_remote_url(s->remote), s->local_path, sizeof(s->local_path));
	if (is_ssh_url(git_remote_url(s->remote)) && !(git_libgit2_features() & GIT_FEATURE_SSH))
		return perun_error_set(
			err, PERUN_EGENERIC,
			"cannot reach remote '%s' over ssh: the libgit2 of this perun "
			"was built without ssh",
			remote);
	return 0;
}

/* The format of the shared tree of commit id: 0, or an error saying why
 * this perun cannot take it. */
static int check_format(struct share *s, const git_oid *id, struct perun_error *err)
{
	git_commit *commit = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	git_tree *tree = NULL;
	int rc = 0;
	if (git_commit_lookup(&commit, s->repo, id) || git_commit_tree(&tree, commit)) {
		rc = git_fail(err, PERUN_EGENERIC, "remote '%s': unreadable %s", s->name,
			      LOCAL_REF);
		goto out;
	}
	if (git_tree_entry_bypath(&entry, tree, FORMAT_FILE) ||
	    git_blob_lookup(&blob, s->repo, git_tree_entry_id(entry))) {
		rc = perun_error_set(err, PERUN_EGENERIC, "remote '%s': %s holds no perun store",
				     s->name, LOCAL_REF);
		goto out;
	}
	char text[64];
	size_t len = (size_t)git_blob_rawsize(blob);
	snprintf(text, sizeof(text), "%.*s", (int)(len < 63 ? len : 63),
		 (const char *)git_blob_rawcontent(blob));
	int format = 0;
	if (sscanf(text, "perun-share %d", &format) != 1 || format < 1)
		rc = perun_error_set(err, PERUN_EGENERIC,
				     "remote '%s': %s has a malformed '%s' file", s->name,
				     LOCAL_REF, FORMAT_FILE);
	else if (format > PERUN_SHARE_FORMAT)
		rc = perun_error_set(err, PERUN_EGENERIC,
				     "remote '%s' holds profiles in store format %d, newer than "
				     "format %d of this perun: upgrade perun to use it",
				     s->name, format, PERUN_SHARE_FORMAT);
out:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

/*
 * libgit2's local transport lists a remote's refs, then reads each: a
 * ref another push removed in between (its incoming ref, see send) fails
 * the listing, "reference 'refs/perun/incoming/...' not found" (as
 * GIT_ERROR, -1).  Such a failure is tried again.
 */
static int listing_race(const struct share *s, int rc)
{
	const git_error *e = git_error_last();
	return rc < 0 && s->local_path[0] && e && e->klass == GIT_ERROR_REFERENCE && e->message &&
	       strstr(e->message, "'refs/perun/incoming/") && strstr(e->message, "not found");
}

/* Fetch the remote's chain into the tracking ref; *have says whether the
 * remote has one (in *remote_id).  A chain this perun cannot take leaves
 * the tracking ref as it was. */
static int fetch(struct share *s, git_oid *remote_id, int *have, struct perun_error *err)
{
	git_oid old;
	int had_old = !git_reference_name_to_id(&old, s->repo, s->track);
	char spec[512];
	snprintf(spec, sizeof(spec), "+%s:%s", LOCAL_REF, s->track);
	char *specs[] = { spec };
	git_strarray refspecs = { specs, 1 };
	git_fetch_options opts;
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.callbacks = callbacks(s);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.update_fetchhead = 0;
	int frc;
	for (int tries = 0;; tries++) {
		s->cred_tries = 0;
		frc = git_remote_fetch(s->remote, &refspecs, &opts, "perun fetch");
		if (!listing_race(s, frc) || tries == 20)
			break;
		usleep(1000 + (unsigned)rand() % 10000);
	}
	if (frc)
		return git_fail(err, PERUN_EGENERIC, "cannot fetch from remote '%s'", s->name);
	*have = !git_reference_name_to_id(remote_id, s->repo, s->track);
	int rc = *have ? check_format(s, remote_id, err) : 0;
	if (rc) {
		git_reference *ref = NULL;
		if (had_old)
			git_reference_create(&ref, s->repo, s->track, &old, 1, "perun: refused");
		else
			git_reference_remove(s->repo, s->track);
		git_reference_free(ref);
	}
	return rc;
}

/* Is a an ancestor of b, or b itself? */
static int contains(git_repository *repo, const git_oid *b, const git_oid *a)
{
	return git_oid_equal(a, b) || git_graph_descendant_of(repo, b, a) == 1;
}

static int commit_tree(git_repository *repo, const git_oid *id, git_tree **tree)
{
	git_commit *commit;
	if (git_commit_lookup(&commit, repo, id))
		return -1;
	int rc = git_commit_tree(tree, commit);
	git_commit_free(commit);
	return rc;
}

/* The blob at path of tree, or NULL. */
static git_blob *blob_at(git_repository *repo, git_tree *tree, const char *path)
{
	git_tree_entry *entry;
	git_blob *blob = NULL;
	if (!tree || git_tree_entry_bypath(&entry, tree, path))
		return NULL;
	if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB)
		git_blob_lookup(&blob, repo, git_tree_entry_id(entry));
	git_tree_entry_free(entry);
	return blob;
}

/* Does tree hold exactly the blob id at path? */
static int tree_has(git_tree *tree, const char *path, const git_oid *id)
{
	git_tree_entry *entry;
	if (!tree || git_tree_entry_bypath(&entry, tree, path))
		return 0;
	int same = !id || git_oid_equal(git_tree_entry_id(entry), id);
	git_tree_entry_free(entry);
	return same;
}

static int entry_dup(struct perun_index_entry *to, const struct perun_index_entry *from)
{
	*to = *from;
	to->path = strdup(from->path ? from->path : "");
	to->type = strdup(from->type ? from->type : "");
	to->cmd = strdup(from->cmd ? from->cmd : "");
	to->workload = strdup(from->workload ? from->workload : "");
	to->collector = strdup(from->collector ? from->collector : "");
	to->postprocessors = strdup(from->postprocessors ? from->postprocessors : "");
	if (to->path && to->type && to->cmd && to->workload && to->collector && to->postprocessors)
		return 0;
	perun_index_entry_release(to);
	return -1;
}

/* Does idx hold an entry of e's name and time (perun_index_insert's
 * notion of the same entry)? */
static int index_has(const struct perun_index *idx, const struct perun_index_entry *e)
{
	for (size_t j = 0; j < idx->n; j++)
		if (idx->entries[j].mtime == e->mtime && !strcmp(idx->entries[j].path, e->path))
			return 1;
	return 0;
}

/* Take the entries of the remote index of minor (blob) that the local
 * index lacks, with their objects from tree. */
static int import_minor(struct share *s, git_tree *tree, const char *minor, git_blob *blob,
			struct perun_share_counts *counts, struct perun_error *err)
{
	struct perun_index theirs, ours;
	char name[400];
	snprintf(name, sizeof(name), "remote '%s' index of %.12s", s->name, minor);
	int rc = perun_index_parse(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), name,
				   &theirs, err);
	if (rc)
		return rc;
	if ((rc = perun_minor_index_read(s->inst, minor, &ours, err))) {
		perun_index_release(&theirs);
		return rc;
	}
	size_t taken = 0;
	for (size_t i = 0; !rc && i < theirs.n; i++) {
		const struct perun_index_entry *e = &theirs.entries[i];
		if (index_has(&ours, e))
			continue;
		char path[64];
		snprintf(path, sizeof(path), "objects/%.2s/%s", e->checksum, e->checksum + 2);
		git_blob *obj = blob_at(s->repo, tree, path);
		int created = 0;
		if (!obj)
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "remote '%s' lacks profile object %s of %.12s; "
					     "nothing was taken",
					     s->name, e->checksum, minor);
		else
			rc = perun_store_write_packed(s->objects, e->checksum,
						      git_blob_rawcontent(obj),
						      (size_t)git_blob_rawsize(obj), &created, err);
		git_blob_free(obj);
		if (rc) {
			if (err->code == PERUN_EINVAL && obj)
				perun_error_prefix(err,
						   "remote '%s': corrupt object, nothing was "
						   "taken",
						   s->name);
			err->code = PERUN_EGENERIC; /* the remote's fault, not the user's */
			break;
		}
		counts->objects += (size_t)created;
		struct perun_index_entry copy;
		if (entry_dup(&copy, e) || perun_index_insert(&ours, &copy) < 0) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		taken++;
	}
	if (!rc && taken)
		rc = perun_minor_index_write(s->inst, minor, &ours, err);
	counts->profiles += taken;
	perun_index_release(&theirs);
	perun_index_release(&ours);
	return rc;
}

/* .perun/share-tip names a commit of the shared chain the store is known
 * to hold all of (the last pushed or pulled tip): refs in the repository
 * are not taken to say what the store holds, since the store may have
 * been made anew.  1 and *tip when there is one. */
static int tip_read(struct share *s, git_oid *tip)
{
	char *path = perun_instance_path(s->inst, "share-tip"), *text = NULL;
	size_t len = 0;
	git_commit *commit = NULL;
	int ok = !perun_file_read(path, &text, &len, NULL) && len >= GIT_OID_HEXSZ &&
		 !git_oid_fromstrn(tip, text, GIT_OID_HEXSZ) &&
		 !git_commit_lookup(&commit, s->repo, tip);
	git_commit_free(commit);
	free(text);
	free(path);
	return ok;
}

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Was nothing written to the store's objects since share-tip?  Every
 * write of an object or index renames a file into objects/<aa>/, which
 * moves that directory's time; so a look at 257 directories tells.  File
 * times are as coarse as the kernel's tick: a time equal to the tip's
 * counts as written. */
static int store_unchanged(struct share *s)
{
	char *tip = perun_instance_path(s->inst, "share-tip");
	struct stat tst, st;
	int same = stat(tip, &tst) == 0 && stat(s->objects, &st) == 0 &&
		   newer(&tst.st_mtim, &st.st_mtim);
	free(tip);
	DIR *d = same ? opendir(s->objects) : NULL;
	struct dirent *de;
	while (d && same && (de = readdir(d))) {
		char path[PATH_MAX];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->objects, de->d_name);
		same = stat(path, &st) == 0 && newer(&tst.st_mtim, &st.st_mtim);
	}
	if (d)
		closedir(d);
	return same;
}

static int tip_write(struct share *s, const git_oid *tip, struct perun_error *err)
{
	char *path = perun_instance_path(s->inst, "share-tip"), line[GIT_OID_HEXSZ + 2];
	snprintf(line, sizeof(line), "%s\n", git_oid_tostr_s(tip));
	int rc = perun_file_write_atomic(path, line, strlen(line), err);
	free(path);
	return rc;
}

/* Take what the remote chain at id has and the store lacks: one durable
 * commit, nothing taken on any error. */
static int import(struct share *s, const git_oid *id, struct perun_share_counts *counts,
		  struct perun_error *err)
{
	git_oid synced;
	int have_synced = tip_read(s, &synced);
	if (have_synced && contains(s->repo, &synced, id))
		return 0; /* taken in before */
	git_tree *theirs = NULL, *ours = NULL, *index = NULL;
	git_tree_entry *ie = NULL;
	int rc = 0;
	if (commit_tree(s->repo, id, &theirs)) {
		rc = git_fail(err, PERUN_EGENERIC, "remote '%s': unreadable %s", s->name,
			      LOCAL_REF);
		goto out;
	}
	if (have_synced)
		commit_tree(s->repo, &synced, &ours);
	if (git_tree_entry_bypath(&ie, theirs, "index"))
		goto out; /* no profiles yet */
	if (git_tree_lookup(&index, s->repo, git_tree_entry_id(ie))) {
		rc = git_fail(err, PERUN_EGENERIC, "remote '%s': unreadable index tree", s->name);
		goto out;
	}
	perun_durable_begin();
	size_t nfan = git_tree_entrycount(index);
	for (size_t f = 0; !rc && f < nfan; f++) {
		const git_tree_entry *fan = git_tree_entry_byindex(index, f);
		git_tree *sub = NULL;
		if (git_tree_entry_type(fan) != GIT_OBJECT_TREE ||
		    git_tree_lookup(&sub, s->repo, git_tree_entry_id(fan)))
			continue;
		for (size_t k = 0; !rc && k < git_tree_entrycount(sub); k++) {
			const git_tree_entry *te = git_tree_entry_byindex(sub, k);
			char minor[PERUN_SHA1_HEX], path[64];
			snprintf(minor, sizeof(minor), "%s%s", git_tree_entry_name(fan),
				 git_tree_entry_name(te));
			if (!perun_is_sha1(minor))
				continue;
			snprintf(path, sizeof(path), "index/%.2s/%s", minor, minor + 2);
			if (tree_has(ours, path, git_tree_entry_id(te)))
				continue;
			git_blob *blob;
			if (git_blob_lookup(&blob, s->repo, git_tree_entry_id(te))) {
				rc = git_fail(err, PERUN_EGENERIC, "remote '%s': index of %.12s",
					      s->name, minor);
				break;
			}
			rc = import_minor(s, theirs, minor, blob, counts, err);
			git_blob_free(blob);
		}
		git_tree_free(sub);
	}
	if (rc)
		perun_durable_abort();
	else
		rc = perun_durable_commit(err);
	if (rc)
		counts->profiles = counts->objects = 0;
out:
	git_tree_entry_free(ie);
	git_tree_free(index);
	git_tree_free(ours);
	git_tree_free(theirs);
	return rc;
}

/* ---- the store as a tree ----------------------------------------------- */

struct export
{
	struct share *s;
	git_tree *base;
	git_tree_update *updates;
	size_t n, alloc;
	char(*want)[PERUN_SHA1_HEX]; /* objects the base lacks */
	size_t nwant, awant;
	struct perun_error *err;
};

static int add_update(struct export *x, const char *path, const git_oid *id)
{
	if (x->n == x->alloc) {
		size_t grow = x->alloc ? x->alloc * 2 : 256;
		git_tree_update *u = realloc(x->updates, grow * sizeof(*u));
		if (!u)
			return perun_error_set(x->err, PERUN_EGENERIC, "out of memory");
		x->updates = u;
		x->alloc = grow;
	}
	char *copy = strdup(path);
	if (!copy)
		return perun_error_set(x->err, PERUN_EGENERIC, "out of memory");
	x->updates[x->n++] = (git_tree_update){ .action = GIT_TREE_UPDATE_UPSERT,
						.id = *id,
						.filemode = GIT_FILEMODE_BLOB,
						.path = copy };
	return 0;
}

static int add_want(struct export *x, const char *sha)
{
	if (x->nwant == x->awant) {
		size_t grow = x->awant ? x->awant * 2 : 256;
		void *w = realloc(x->want, grow * sizeof(*x->want));
		if (!w)
			return perun_error_set(x->err, PERUN_EGENERIC, "out of memory");
		x->want = w;
		x->awant = grow;
	}
	snprintf(x->want[x->nwant++], PERUN_SHA1_HEX, "%s", sha);
	return 0;
}

/* A minor version's index changed since the base: it, and the objects of
 * its entries the base lacks. */
static int export_item(const struct perun_store_item *item, void *data)
{
	struct export *x = data;
	if (item->kind != PERUN_STORE_INDEX)
		return 0;
	char *buf, path[64];
	size_t len;
	git_oid id;
	int rc = perun_file_read(item->path, &buf, &len, x->err);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "index/%.2s/%s", item->sha, item->sha + 2);
	if (git_odb_hash(&id, buf, len, GIT_OBJECT_BLOB) || tree_has(x->base, path, &id)) {
		free(buf);
		return 0;
	}
	struct perun_index idx;
	rc = perun_index_parse(buf, len, item->path, &idx, x->err);
	/* The tree only grows: entries of the tip's index of this version
	 * that the store lacks (removed here, or a store made anew) stay. */
	git_blob *old = blob_at(x->s->repo, x->base, path);
	if (!rc && old) {
		struct perun_index tip;
		size_t own = idx.n;
		rc = perun_index_parse(git_blob_rawcontent(old), (size_t)git_blob_rawsize(old),
				       path, &tip, x->err);
		for (size_t i = 0; !rc && i < tip.n; i++) {
			struct perun_index_entry copy;
			if (index_has(&idx, &tip.entries[i]))
				continue;
			if (entry_dup(&copy, &tip.entries[i]) ||
			    perun_index_insert(&idx, &copy) < 0)
				rc = perun_error_set(x->err, PERUN_EGENERIC, "out of memory");
		}
		perun_index_release(&tip);
		unsigned char *merged =
			!rc && idx.n > own ? perun_index_serialize(&idx, &len) : NULL;
		if (merged) {
			free(buf);
			buf = (char *)merged;
		} else if (!rc && idx.n > own) {
			rc = perun_error_set(x->err, PERUN_EGENERIC, "out of memory");
		}
	}
	git_blob_free(old);
	if (!rc && git_blob_create_from_buffer(&id, x->s->repo, buf, len))
		rc = git_fail(x->err, PERUN_EGENERIC, "cannot write the index of %.12s to git",
			      item->sha);
	if (!rc)
		rc = add_update(x, path, &id);
	for (size_t i = 0; !rc && i < idx.n; i++) {
		char opath[64];
		const char *sha = idx.entries[i].checksum;
		snprintf(opath, sizeof(opath), "objects/%.2s/%s", sha, sha + 2);
		if (!tree_has(x->base, opath, NULL))
			rc = add_want(x, sha);
	}
	perun_index_release(&idx);
	free(buf);
	return rc;
}

static int cmp_sha(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The tree of the store on top of base (NULL: none); *sent counts the
 * profile objects new to it. */
static int export(struct share *s, git_tree *base, git_oid *tree_id, size_t *added,
		  struct perun_error *err)
{
	struct export x = { .s = s, .base = base, .err = err };
	git_tree *empty = NULL;
	int rc = perun_store_scan(s->objects, export_item, &x);
	if (!rc && x.nwant)
		qsort(x.want, x.nwant, sizeof(*x.want), cmp_sha);
	*added = 0;
	for (size_t i = 0; !rc && i < x.nwant; i++) {
		if (i && !strcmp(x.want[i], x.want[i - 1]))
			continue;
		char path[PATH_MAX], tpath[64], *buf;
		size_t len;
		git_oid id;
		perun_store_object_path(s->objects, x.want[i], path, sizeof(path));
		if (perun_file_read(path, &buf, &len, err)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "profile object %s is missing from the store "
					     "(see perun fsck)",
					     x.want[i]);
			break;
		}
		if (git_blob_create_from_buffer(&id, s->repo, buf, len))
			rc = git_fail(err, PERUN_EGENERIC, "cannot write object %s to git",
				      x.want[i]);
		free(buf);
		snprintf(tpath, sizeof(tpath), "objects/%.2s/%s", x.want[i], x.want[i] + 2);
		if (!rc)
			rc = add_update(&x, tpath, &id);
		(*added)++;
	}
	char format[32];
	int flen = snprintf(format, sizeof(format), "perun-share %d\n", PERUN_SHARE_FORMAT);
	git_oid fid;
	if (!rc && git_blob_create_from_buffer(&fid, s->repo, format, (size_t)flen))
		rc = git_fail(err, PERUN_EGENERIC, "cannot write to git");
	if (!rc && !tree_has(base, FORMAT_FILE, &fid))
		rc = add_update(&x, FORMAT_FILE, &fid);
	if (!rc && !base) {
		git_treebuilder *tb;
		git_oid eid;
		if (git_treebuilder_new(&tb, s->repo, NULL) || git_treebuilder_write(&eid, tb) ||
		    git_tree_lookup(&empty, s->repo, &eid))
			rc = git_fail(err, PERUN_EGENERIC, "cannot write to git");
		git_treebuilder_free(tb);
		base = empty;
	}
	if (!rc && git_tree_create_updated(tree_id, s->repo, base, x.n, x.updates))
		rc = git_fail(err, PERUN_EGENERIC, "cannot build the tree of the profiles");
	for (size_t i = 0; i < x.n; i++)
		free((char *)x.updates[i].path);
	free(x.updates);
	free(x.want);
	git_tree_free(empty);
	return rc;
}

/* Commit the store onto refs/perun/profiles, merging the remote's chain
 * (remote, when not NULL) that import took in; *out is the new tip. */
static int record(struct share *s, const git_oid *remote, git_oid *out, size_t *added,
		  struct perun_error *err)
{
	git_oid local, tree_id;
	git_tree *base = NULL;
	git_signature *sig = NULL;
	git_oid synced;
	int have_local = !git_reference_name_to_id(&local, s->repo, LOCAL_REF);
	if (have_local)
		commit_tree(s->repo, &local, &base);
	int rc = 0;
	*added = 0;
	/* The store exported into the tip and not written since: its tree. */
	if (base && tip_read(s, &synced) && git_oid_equal(&synced, &local) && store_unchanged(s))
		git_oid_cpy(&tree_id, git_tree_id(base));
	else
		rc = export(s, base, &tree_id, added, err);
	git_tree_free(base);
	if (rc)
		return rc;
	/* What the tree of a tip is, to keep a tip that holds just this. */
	git_oid parents[2];
	size_t nparents = 0;
	int local_has_remote = have_local && remote && contains(s->repo, &local, remote);
	int remote_has_local = have_local && remote && contains(s->repo, remote, &local);
	if (have_local && !remote_has_local)
		parents[nparents++] = local;
	if (remote && !local_has_remote)
		parents[nparents++] = *remote;
	if (nparents == 0 && have_local) /* the same commit on both sides */
		parents[nparents++] = local;
	if (nparents == 1) {
		git_tree *tip;
		if (!commit_tree(s->repo, &parents[0], &tip)) {
			int same = git_oid_equal(git_tree_id(tip), &tree_id);
			git_tree_free(tip);
			if (same) {
				*out = parents[0];
				goto set;
			}
		}
	}
	const git_commit *pc[2] = { NULL, NULL };
	git_commit *pcs[2] = { NULL, NULL };
	git_tree *tree = NULL;
	for (size_t i = 0; i < nparents; i++)
		if (git_commit_lookup(&pcs[i], s->repo, &parents[i]))
			rc = git_fail(err, PERUN_EGENERIC, "cannot read %s", LOCAL_REF);
	for (size_t i = 0; i < nparents; i++)
		pc[i] = pcs[i];
	if (!rc && git_signature_default(&sig, s->repo) &&
	    git_signature_now(&sig, "perun", "perun@localhost"))
		rc = git_fail(err, PERUN_EGENERIC, "cannot sign the profiles' commit");
	if (!rc && git_tree_lookup(&tree, s->repo, &tree_id))
		rc = git_fail(err, PERUN_EGENERIC, "cannot read the profiles' tree");
	if (!rc && git_commit_create(out, s->repo, NULL, sig, sig, NULL,
				     nparents > 1 ? "perun: merge profiles" : "perun: profiles",
				     tree, nparents, pc))
		rc = git_fail(err, PERUN_EGENERIC, "cannot commit the profiles");
	git_tree_free(tree);
	git_signature_free(sig);
	for (size_t i = 0; i < nparents; i++)
		git_commit_free(pcs[i]);
	if (rc)
		return rc;
set:;
	git_reference *ref = NULL;
	if ((!have_local || !git_oid_equal(out, &local)) &&
	    git_reference_create(&ref, s->repo, LOCAL_REF, out, 1, "perun: profiles"))
		rc = git_fail(err, PERUN_EGENERIC, "cannot update %s", LOCAL_REF);
	git_reference_free(ref);
	return rc;
}

/* A ref lock left by a killed process: an update holds it for
 * microseconds, so one 3 s old is stale (the retries of a push span more). */
static void remove_stale_lock(git_repository *repo, const char *refname)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s%s.lock", git_repository_path(repo), refname);
	if (stat(path, &st) == 0 && time(NULL) - st.st_mtime > 3)
		unlink(path);
}

/*
 * Send tip to the remote, whose chain was at remote (NULL: none).  A
 * remote that moved meanwhile counts in s->rejected, nothing forced.
 * On this machine libgit2 would write the ref without comparing, so the
 * objects go to a ref of this push's own and the tip is then set with a
 * compare-and-swap under git's ref lock; elsewhere git's receive-pack
 * compares.
 */
static int send(struct share *s, const git_oid *tip, const git_oid *remote, struct perun_error *err)
{
	char spec[512], incoming[256];
	git_push_options opts;
	git_push_options_init(&opts, GIT_PUSH_OPTIONS_VERSION);
	opts.callbacks = callbacks(s);
	s->cred_tries = 0;
	s->rejected = 0;
	if (s->local_path[0])
		snprintf(incoming, sizeof(incoming), "refs/perun/incoming/%ld-%d-%d",
			 (long)time(NULL), (int)getpid(), rand());
	snprintf(spec, sizeof(spec), s->local_path[0] ? "+%s:%s" : "%s:%s", LOCAL_REF,
		 s->local_path[0] ? incoming : LOCAL_REF);
	char *specs[] = { spec };
	git_strarray refspecs = { specs, 1 };
	int rc = git_remote_push(s->remote, &refspecs, &opts);
	if (rc == GIT_ENONFASTFORWARD) {
		s->rejected++;
		return 0;
	}
	int raced = listing_race(s, rc);
	if (rc && !raced)
		return git_fail(err, PERUN_EGENERIC, "cannot push to remote '%s'", s->name);
	if (!s->local_path[0])
		return 0;
	git_repository *there;
	if (git_repository_open_ext(&there, s->local_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL))
		return git_fail(err, PERUN_EGENERIC, "cannot push to remote '%s'", s->name);
	git_reference *ref = NULL;
	/* A remote without the ref yet is matched against the zero id: a
	 * plain create (force 0) looks for the ref before it takes the
	 * lock, so two first pushes at once both "created" it and the
	 * second overwrote the first's profiles. */
	git_oid none;
	memset(&none, 0, sizeof(none));
	if (raced) /* tried again, as a push the remote moved under */
		rc = GIT_EMODIFIED;
	else
		rc = git_reference_create_matching(&ref, there, LOCAL_REF, tip, 1,
						   remote ? remote : &none, "perun push");
	git_reference_free(ref);
	if (rc == GIT_ELOCKED)
		remove_stale_lock(there, LOCAL_REF);
	if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED) {
		s->rejected++;
		rc = 0;
	} else if (rc) {
		rc = git_fail(err, PERUN_EGENERIC, "cannot push to remote '%s'", s->name);
	}
	git_reference_remove(there, incoming);
	git_repository_free(there);
	return rc;
}

/*
 * Under the store lock no other perun writes this repository's perun refs:
 * a lock file of one was left by a perun killed while writing it (a push
 * or pull stopped at a random moment), and would fail every later fetch.
 */
static void remove_left_ref_locks(const struct share *s)
{
	const char *refs[] = { LOCAL_REF, s->track };
	for (size_t i = 0; i < sizeof(refs) / sizeof(*refs); i++) {
		char path[PATH_MAX];
		/* Shared refs: the common directory, also from a worktree. */
		snprintf(path, sizeof(path), "%s%s.lock", git_repository_commondir(s->repo),
			 refs[i]);
		unlink(path);
	}
}

static int lock_and_open(struct share *s, struct perun_instance *inst, const char *remote,
			 struct perun_share_counts *counts, struct perun_error *err)
{
	memset(counts, 0, sizeof(*counts));
	int rc = share_open(s, inst, remote, err);
	if (!rc)
		rc = perun_instance_lock(inst, err);
	if (!rc)
		remove_left_ref_locks(s);
	return rc;
}

/* Fetch; with take, also take the remote's profiles in and note the
 * remote's tip as held, so that the next pull of the same chain knows it
 * is in (the merge is committed by the next push). */
static int fetch_take(struct perun_instance *inst, const char *remote, int take,
		      struct perun_share_counts *counts, struct perun_error *err)
{
	struct share s;
	git_oid id, before;
	int have = 0;
	int rc = lock_and_open(&s, inst, remote, counts, err);
	int had = !rc && !git_reference_name_to_id(&before, s.repo, s.track);
	if (!rc)
		rc = fetch(&s, &id, &have, err);
	if (!rc && have && take)
		rc = import(&s, &id, counts, err);
	if (!rc && have && take)
		rc = tip_write(&s, &id, err);
	if (!rc && take)
		counts->up_to_date = !counts->profiles;
	else if (!rc) {
		counts->up_to_date = !have || (had && git_oid_equal(&before, &id));
		counts->objects = git_remote_stats(s.remote)->received_objects;
	}
	share_close(&s);
	return rc;
}

int perun_share_fetch(struct perun_instance *inst, const char *remote,
		      struct perun_share_counts *counts, struct perun_error *err)
{
	return fetch_take(inst, remote, 0, counts, err);
}

int perun_share_pull(struct perun_instance *inst, const char *remote,
		     struct perun_share_counts *counts, struct perun_error *err)
{
	return fetch_take(inst, remote, 1, counts, err);
}

int perun_share_push(struct perun_instance *inst, const char *remote,
		     struct perun_share_counts *counts, struct perun_error *err)
{
	struct share s;
	int rc = lock_and_open(&s, inst, remote, counts, err);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (unsigned attempt = 0; !rc; attempt++) {
		git_oid id, tip;
		int have = 0;
		size_t added = 0;
		rc = fetch(&s, &id, &have, err);
		if (!rc && have)
			rc = import(&s, &id, counts, err);
		if (!rc)
			rc = record(&s, have ? &id : NULL, &tip, &added, err);
		if (rc)
			break;
		if (have && git_oid_equal(&tip, &id)) {
			counts->up_to_date = 1;
			rc = tip_write(&s, &tip, err);
			break;
		}
		if ((rc = send(&s, &tip, have ? &id : NULL, err)))
			break;
		if (!s.rejected) {
			rc = tip_write(&s, &tip, err);
			counts->sent = s.sent_objects;
			git_reference *ref = NULL;
			git_reference_create(&ref, s.repo, s.track, &tip, 1, "perun push");
			git_reference_free(ref);
			break;
		}
		counts->retries++;
		if (attempt + 1 >= PUSH_TRIES) {
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "remote '%s' kept moving: gave up after %u tries "
					     "(nothing was forced)",
					     s.name, attempt + 1);
			break;
		}
		/* Others push too: wait a little, longer each time. */
		unsigned ms = 10 + (unsigned)rand() % (20 * (attempt < 10 ? attempt + 1 : 10));
		usleep(ms * 1000);
	}
	share_close(&s);
	return rc;
}

struct perun_share_view {
	git_repository *repo;
	git_tree **trees; /* of each fetched remote's tip */
	char **refs;	  /* the tracking ref of each */
	size_t n;
	int strict;		 /* a ref or object git cannot read is an error */
	struct perun_error *err; /* of a strict open */
};

static int view_add(const char *refname, void *data)
{
	struct perun_share_view *v = data;
	size_t len = strlen(refname), tail = strlen("/profiles");
	git_oid id;
	git_tree *tree;
	if (len < tail || strcmp(refname + len - tail, "/profiles"))
		return 0;
	if (git_reference_name_to_id(&id, v->repo, refname) || commit_tree(v->repo, &id, &tree)) {
		if (!v->strict)
			return 0;
		git_fail(v->err, PERUN_EGENERIC, "fetched ref %s is unreadable", refname);
		return GIT_EUSER;
	}
	git_tree **grown = realloc(v->trees, (v->n + 1) * sizeof(*grown));
	char **names = grown ? realloc(v->refs, (v->n + 1) * sizeof(*names)) : NULL;
	if (grown)
		v->trees = grown;
	if (names)
		v->refs = names;
	if (!names || !(names[v->n] = strdup(refname))) {
		git_tree_free(tree);
		perun_error_set(v->err, PERUN_EGENERIC, "out of memory");
		return GIT_EUSER;
	}
	v->trees[v->n++] = tree;
	return 0;
}

static int view_open(const struct perun_instance *inst, int strict, struct perun_share_view **out,
		     struct perun_error *err)
{
	*out = NULL;
	struct perun_share_view *v = calloc(1, sizeof(*v));
	if (!v)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	v->strict = strict;
	v->err = err;
	git_libgit2_init();
	if (git_repository_open_ext(&v->repo, inst->root, 0, NULL)) {
		perun_share_view_close(v);
		return 0;
	}
	int rc = git_reference_foreach_glob(v->repo, "refs/perun/remotes/*", view_add, v);
	if (rc < 0) {
		if (rc != GIT_EUSER)
			git_fail(err, PERUN_EGENERIC, "cannot read the fetched refs/perun/remotes");
		perun_share_view_close(v);
		return -err->code;
	}
	v->err = NULL;
	if (!v->n) {
		perun_share_view_close(v);
		return 0;
	}
	*out = v;
	return 0;
}

int perun_share_view_open(const struct perun_instance *inst, struct perun_share_view **out,
			  struct perun_error *err)
{
	return view_open(inst, 0, out, err);
}

int perun_share_view_open_strict(const struct perun_instance *inst, struct perun_share_view **out,
				 struct perun_error *err)
{
	return view_open(inst, 1, out, err);
}

void perun_share_view_close(struct perun_share_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		git_tree_free(v->trees[i]);
		free(v->refs[i]);
	}
	free(v->trees);
	free(v->refs);
	git_repository_free(v->repo);
	free(v);
	git_libgit2_shutdown();
}

/* The blob at path of remote r's tree into *blob (NULL when the tree has
 * no such path); an entry git cannot read is an error of a strict view. */
static int view_blob(struct perun_share_view *v, size_t r, const char *path, git_blob **blob,
		     struct perun_error *err)
{
	git_tree_entry *entry;
	*blob = NULL;
	if (git_tree_entry_bypath(&entry, v->trees[r], path))
		return 0;
	int rc = 0;
	if ((git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	     git_blob_lookup(blob, v->repo, git_tree_entry_id(entry))) &&
	    v->strict)
		rc = git_fail(err, PERUN_EGENERIC,
			      "fetched ref %s: %s (git object %s) is unreadable", v->refs[r], path,
			      git_oid_tostr_s(git_tree_entry_id(entry)));
	git_tree_entry_free(entry);
	return rc;
}

/* The index of minor sha on remote r into *idx; 1 when r has one. */
static int view_index(struct perun_share_view *v, size_t r, const char *sha,
		      struct perun_index *idx, struct perun_error *err)
{
	char path[64], name[512];
	git_blob *blob;
	snprintf(path, sizeof(path), "index/%.2s/%s", sha, sha + 2);
	int rc = view_blob(v, r, path, &blob, err);
	if (rc || !blob)
		return rc;
	snprintf(name, sizeof(name), "the index of %.12s fetched to %s", sha, v->refs[r]);
	rc = perun_index_parse(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), name, idx,
			       err);
	git_blob_free(blob);
	return rc ? rc : 1;
}

int perun_share_view_compare(struct perun_share_view *v, const char *sha, const char *const *local,
			     size_t n, int *on, struct perun_index *remote_only,
			     struct perun_error *err)
{
	int rc = 0;
	memset(on, 0, n * sizeof(*on));
	if (remote_only)
		memset(remote_only, 0, sizeof(*remote_only));
	for (size_t r = 0; rc >= 0 && r < v->n; r++) {
		struct perun_index idx;
		if ((rc = view_index(v, r, sha, &idx, err)) <= 0)
			continue;
		rc = 0;
		for (size_t e = 0; !rc && e < idx.n; e++) {
			const struct perun_index_entry *entry = &idx.entries[e];
			int here = 0;
			for (size_t i = 0; i < n; i++)
				if (!strcmp(local[i], entry->checksum))
					here = on[i] = 1;
			for (size_t k = 0; !here && remote_only && k < remote_only->n; k++)
				here = !strcmp(remote_only->entries[k].checksum, entry->checksum);
			struct perun_index_entry copy;
			if (here || !remote_only)
				continue;
			if (entry_dup(&copy, entry) || perun_index_insert(remote_only, &copy) < 0)
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		perun_index_release(&idx);
	}
	if (rc && remote_only)
		perun_index_release(remote_only);
	return rc < 0 ? rc : 0;
}

int perun_share_view_add_index(struct perun_share_view *v, const char *sha, struct perun_index *idx,
			       struct perun_error *err)
{
	int rc = 0;
	for (size_t r = 0; v && rc >= 0 && r < v->n; r++) {
		struct perun_index theirs;
		if ((rc = view_index(v, r, sha, &theirs, err)) <= 0)
			continue;
		rc = 0;
		for (size_t e = 0; !rc && e < theirs.n; e++) {
			struct perun_index_entry copy;
			if (index_has(idx, &theirs.entries[e]))
				continue;
			if (entry_dup(&copy, &theirs.entries[e]) ||
			    perun_index_insert(idx, &copy) < 0)
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		perun_index_release(&theirs);
	}
	return rc < 0 ? rc : 0;
}

int perun_share_view_load(struct perun_share_view *v, const char *checksum,
			  struct perun_profile **out, struct perun_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "objects/%.2s/%s", checksum, checksum + 2);
	for (size_t r = 0; v && r < v->n; r++) {
		git_blob *blob;
		int rc = view_blob(v, r, path, &blob, err);
		if (rc)
			return rc;
		if (!blob)
			continue;
		rc = perun_store_load_packed(git_blob_rawcontent(blob),
					     (size_t)git_blob_rawsize(blob), checksum, out, err);
		git_blob_free(blob);
		if (rc) {
			perun_error_prefix(err, "fetched ref %s: corrupt object", v->refs[r]);
			err->code = PERUN_EGENERIC;
		}
		return rc;
	}
	return perun_error_set(err, PERUN_ENOTFOUND,
			       "profile object %s is missing from the store and the fetched "
			       "remotes",
			       checksum);
}

#else /* !HAVE_LIBGIT2 */

static int no_git(struct perun_error *err)
{
	return perun_error_set(err, PERUN_EGENERIC,
			       "this perun was built without libgit2: it cannot share profiles");
}

int perun_share_fetch(struct perun_instance *inst, const char *remote,
		      struct perun_share_counts *counts, struct perun_error *err)
{
	return no_git(err);
}

int perun_share_pull(struct perun_instance *inst, const char *remote,
		     struct perun_share_counts *counts, struct perun_error *err)
{
	return no_git(err);
}

int perun_share_push(struct perun_instance *inst, const char *remote,
		     struct perun_share_counts *counts, struct perun_error *err)
{
	return no_git(err);
}

int perun_share_view_open(const struct perun_instance *inst, struct perun_share_view **out,
			  struct perun_error *err)
{
	*out = NULL;
	return 0;
}

int perun_share_view_open_strict(const struct perun_instance *inst, struct perun_share_view **out,
				 struct perun_error *err)
{
	*out = NULL;
	return 0;
}

void perun_share_view_close(struct perun_share_view *view)
{
}

int perun_share_view_add_index(struct perun_share_view *view, const char *sha,
			       struct perun_index *idx, struct perun_error *err)
{
	return 0;
}

int perun_share_view_load(struct perun_share_view *view, const char *checksum,
			  struct perun_profile **out, struct perun_error *err)
{
	return perun_error_set(err, PERUN_ENOTFOUND, "profile object %s is missing from the store",
			       checksum);
}

int perun_share_view_compare(struct perun_share_view *view, const char *sha,
			     const char *const *local, size_t n, int *on,
			     struct perun_index *remote_only, struct perun_error *err)
{
	return no_git(err);
}

#endif
