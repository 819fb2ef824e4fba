#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sbatch docs/ci/slurm-array.sh: the job matrix of the instance in the
# submit directory over the last ten commits, one shard per array task;
# each task collects in a clone of its own and pushes to the shared bare
# repository, which then holds every profile exactly once.
#SBATCH --array=0-7
#SBATCH --cpus-per-task=1
#SBATCH --job-name=perun-matrix
set -e
work="${TMPDIR:-/tmp}/perun-$SLURM_ARRAY_JOB_ID-$SLURM_ARRAY_TASK_ID"
git clone -q "$SLURM_SUBMIT_DIR" "$work" && cd "$work"
perun init >/dev/null
cp "$SLURM_SUBMIT_DIR/.perun/local.yml" .perun/local.yml
perun config --local set profiles.register_after_run true
revs=$(git rev-list -n 10 HEAD | sed 's/^/-m /')
# shellcheck disable=SC2086
perun run $revs --shard "$((SLURM_ARRAY_TASK_ID + 1))/$SLURM_ARRAY_TASK_COUNT" matrix
perun push "$SLURM_SUBMIT_DIR/../profiles.git"
