# SPDX-License-Identifier: GPL-3.0-or-later
# The libFuzzer targets are built by fuzz/build.sh (clang with sanitizers,
# outside the automake build); tests/t0970-fuzz-targets.sh runs them.
EXTRA_DIST += %reldir%/README.md %reldir%/build.sh \
	%reldir%/fuzz_profile_load.c %reldir%/fuzz_config_yaml.c \
	%reldir%/fuzz_index_read.c %reldir%/fuzz_store_object.c \
	%reldir%/corpus/profile_load/time.perf %reldir%/corpus/profile_load/models.perf \
	%reldir%/corpus/profile_load/mixed.perf \
	%reldir%/corpus/config_yaml/demo.yml %reldir%/corpus/config_yaml/master-template.yml \
	%reldir%/corpus/config_yaml/anchors.yml \
	%reldir%/corpus/index_read/one-entry.pidx \
	%reldir%/corpus/store_object/time.object

# make fuzz-smoke: build the targets and run each for a while from its
# seeds (FUZZ_SECONDS each, default 30); the long runs of bench/.
FUZZ_SECONDS = 30
fuzz-smoke:
	$(SHELL) $(srcdir)/%reldir%/build.sh $(abs_builddir)/%reldir%/out
	for t in profile_load config_yaml index_read store_object; do \
		$(MKDIR_P) %reldir%/new/$$t && \
		%reldir%/out/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) %reldir%/new/$$t \
			$(srcdir)/%reldir%/corpus/$$t || exit 1; \
	done
.PHONY: fuzz-smoke
