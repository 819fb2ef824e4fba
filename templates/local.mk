# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin templates of 'perun utils create' (core/cmd_utils_create.c),
# distributed and installed as they are (never built here): in-tree/<kind>/
# a plugin directory for plugins/<kind>/<name>/ (tests/t0960-in-tree-templates.sh),
# standalone/ the project files of an out-of-tree plugin around a kind's
# files (tests/t0950-sdk-out-of-tree.sh).  Installed into
# $(pkgdatadir)/templates with symbolic links followed (the standalone
# project's tests/test-lib.sh is perun's own).
EXTRA_DIST += %reldir%/standalone %reldir%/in-tree scripts/new-plugin.sh
templatesdir = $(pkgdatadir)/templates

install-data-local: install-templates
uninstall-local: uninstall-templates
install-templates:
	$(MKDIR_P) '$(DESTDIR)$(templatesdir)'
	cd '$(srcdir)/%reldir%' && for top in in-tree standalone; do \
		find -L $$top -type d | while read -r d; do \
			$(MKDIR_P) "$(DESTDIR)$(templatesdir)/$$d" || exit 1; \
		done || exit 1; \
		find -L $$top -type f | while read -r f; do \
			mode=644; test ! -x "$$f" || mode=755; \
			$(INSTALL) -m $$mode "$$f" "$(DESTDIR)$(templatesdir)/$$f" || exit 1; \
		done || exit 1; \
	done
uninstall-templates:
	rm -rf '$(DESTDIR)$(templatesdir)/in-tree' '$(DESTDIR)$(templatesdir)/standalone'
	-rmdir '$(DESTDIR)$(templatesdir)'
.PHONY: install-templates uninstall-templates
