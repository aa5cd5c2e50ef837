package rules

import (
	"math"
)

// The DisaggregatedSet controller's rollout planner, ported so that the plan says how the
// controller paces a rollout: every role moves by one shared number of steps (computeTotalSteps:
// the most any role needs), not each role by its own batch.
//
// Port of sigs.k8s.io/lws pkg/controllers/disaggregatedset/planner.go, the same code in v0.9.0
// and v0.10.0 (2161f38 adds comments only): the types, batchSize, computeTotalSteps,
// computeNextNewReplicas, computeNextOldReplicas, correctAbnormalState, isComplete,
// isNewAtTarget, canScaleUp, computeMinOld, tryScaleUp, tryProportionalDrain,
// canDrainAllToZero, applyOrphanPrevention, tryForceDrain, ComputeNextStep and ComputeAllSteps,
// with the same computations in the same order (Go 1.22 range loops, some conditions joined);
// the executor's DefaultRollingUpdateConfig with them.

// updateStep is UpdateStep: the old (Past) and new revision's replicas per role after a step.
type updateStep struct {
	Past []int
	New  []int
}

// rollingUpdateConfig is RollingUpdateConfig.
type rollingUpdateConfig struct {
	MaxSurge       int
	MaxUnavailable int
}

// defaultRollingUpdateConfig is DefaultRollingUpdateConfig: a surge of 1, none unavailable.
func defaultRollingUpdateConfig(numRoles int) []rollingUpdateConfig {
	configs := make([]rollingUpdateConfig, numRoles)
	for i := range numRoles {
		configs[i].MaxSurge = 1
		configs[i].MaxUnavailable = 0
	}
	return configs
}

func batchSize(maxSurge, maxUnavailable int) int {
	if maxSurge > 0 {
		return maxSurge
	}
	return max(1, maxUnavailable)
}

// computeTotalSteps is the number of scale-up steps of the rollout: per role
// ceil(max(initialOld, target) / batchSize), the largest over the roles.
func computeTotalSteps(initialOld, target []int, config []rollingUpdateConfig) int {
	totalSteps := 0
	for i := range initialOld {
		maxReplicas := max(initialOld[i], target[i], 0)
		roleBatchSize := batchSize(config[i].MaxSurge, config[i].MaxUnavailable)
		roleSteps := (maxReplicas + roleBatchSize - 1) / roleBatchSize
		totalSteps = max(totalSteps, roleSteps)
	}
	return totalSteps
}

func computeNextNewReplicas(target, currentNew []int, totalSteps int) []int {
	numRoles := len(target)
	if totalSteps == 0 {
		result := make([]int, numRoles)
		copy(result, target)
		return result
	}
	stepIndex := func(current, targetVal int) int {
		if targetVal == 0 {
			return totalSteps
		}
		return int(float64(current) * float64(totalSteps) / float64(targetVal))
	}
	minStepIdx := totalSteps
	for i := range numRoles {
		minStepIdx = min(minStepIdx, stepIndex(currentNew[i], target[i]))
	}
	nextStepIdx := minStepIdx + 1
	computeNew := func(targetVal, currentVal int) int {
		progress := float64(nextStepIdx) * float64(targetVal) / float64(totalSteps)
		computed := min(int(math.Ceil(progress)), targetVal)
		return max(computed, currentVal)
	}
	result := make([]int, numRoles)
	for i := range numRoles {
		result[i] = computeNew(target[i], currentNew[i])
	}
	return result
}

func computeNextOldReplicas(initialOld, currentOld []int, totalSteps int) []int {
	numRoles := len(initialOld)
	if totalSteps == 0 {
		return make([]int, numRoles)
	}
	stepIndex := func(removed, sourceVal int) int {
		if sourceVal == 0 {
			return 0
		}
		return int(float64(removed) * float64(totalSteps) / float64(sourceVal))
	}
	maxStepIdx := 0
	for i := range numRoles {
		if initialOld[i] == 0 {
			continue
		}
		removed := initialOld[i] - currentOld[i]
		maxStepIdx = max(maxStepIdx, stepIndex(removed, initialOld[i]))
	}
	nextStepIdx := maxStepIdx + 1
	computeOld := func(sourceVal, currentVal int) int {
		progress := float64(nextStepIdx) * float64(sourceVal) / float64(totalSteps)
		computed := max(0, sourceVal-int(math.Floor(progress)))
		return min(computed, currentVal)
	}
	result := make([]int, numRoles)
	for i := range numRoles {
		result[i] = computeOld(initialOld[i], currentOld[i])
	}
	return result
}

func correctAbnormalState(currentOld, currentNew, initialOld []int) *updateStep {
	numRoles := len(initialOld)
	expectedOld := make([]int, numRoles)
	needsCorrection := false
	for i := range numRoles {
		expectedOld[i] = min(initialOld[i], currentOld[i])
		if currentOld[i] > expectedOld[i] {
			needsCorrection = true
		}
	}
	if needsCorrection {
		newCopy := make([]int, numRoles)
		copy(newCopy, currentNew)
		return &updateStep{Past: expectedOld, New: newCopy}
	}
	return nil
}

func isComplete(currentOld, currentNew, targetNew []int) bool {
	for i := range currentOld {
		if currentOld[i] != 0 || currentNew[i] < targetNew[i] {
			return false
		}
	}
	return true
}

func isNewAtTarget(currentNew, targetNew []int) bool {
	for i := range currentNew {
		if currentNew[i] < targetNew[i] {
			return false
		}
	}
	return true
}

func canScaleUp(currentOld, nextNew, targetNew []int, config []rollingUpdateConfig) bool {
	for i := range currentOld {
		if targetNew[i] == 0 {
			continue
		}
		if currentOld[i]+nextNew[i] > targetNew[i]+config[i].MaxSurge {
			return false
		}
	}
	return true
}

func computeMinOld(initialOld, currentNew, targetNew []int, config []rollingUpdateConfig) []int {
	minOld := make([]int, len(initialOld))
	for i := range initialOld {
		if initialOld[i] >= targetNew[i] {
			minOld[i] = max(0, targetNew[i]-config[i].MaxUnavailable-currentNew[i])
		}
	}
	return minOld
}

func tryScaleUp(currentOld, currentNew, nextNew, targetNew []int, config []rollingUpdateConfig) *updateStep {
	needsScaleUp := false
	for i := range currentNew {
		if nextNew[i] > currentNew[i] {
			needsScaleUp = true
			break
		}
	}
	if !needsScaleUp || !canScaleUp(currentOld, nextNew, targetNew, config) {
		return nil
	}
	return &updateStep{Past: currentOld, New: nextNew}
}

func tryProportionalDrain(initialOld, currentOld, currentNew, targetNew, minOld []int, totalSteps int, config []rollingUpdateConfig) *updateStep {
	nextOld := computeNextOldReplicas(initialOld, currentOld, totalSteps)
	for i := range nextOld {
		nextOld[i] = max(nextOld[i], minOld[i])
	}
	applyOrphanPrevention(nextOld, currentNew, initialOld, targetNew, config)
	needsScaleDown := false
	for i := range nextOld {
		if nextOld[i] < currentOld[i] {
			needsScaleDown = true
			break
		}
	}
	if !needsScaleDown {
		return nil
	}
	return &updateStep{Past: nextOld, New: currentNew}
}

func canDrainAllToZero(nextNew, initialOld, target []int, config []rollingUpdateConfig) bool {
	for i := range target {
		if initialOld[i] >= target[i] && nextNew[i] < target[i]-config[i].MaxUnavailable {
			return false
		}
	}
	return true
}

func applyOrphanPrevention(nextOld, currentNew, initialOld, target []int, config []rollingUpdateConfig) {
	anyDrainsToZero, allDrainToZero := false, true
	for i := range nextOld {
		if initialOld[i] == 0 {
			continue
		}
		if nextOld[i] == 0 {
			anyDrainsToZero = true
		} else {
			allDrainToZero = false
		}
	}
	if !anyDrainsToZero || allDrainToZero {
		return
	}
	if canDrainAllToZero(currentNew, initialOld, target, config) {
		for i := range nextOld {
			nextOld[i] = 0
		}
		return
	}
	for i := range nextOld {
		if nextOld[i] == 0 && initialOld[i] > 0 {
			nextOld[i] = 1
		}
	}
}

func tryForceDrain(currentOld, nextNew, initialOld, targetNew []int, config []rollingUpdateConfig) *updateStep {
	drainedOld := make([]int, len(currentOld))
	needsDrain := false
	for i := range currentOld {
		maxOld := targetNew[i] + config[i].MaxSurge - nextNew[i]
		drainedOld[i] = max(0, min(currentOld[i], maxOld))
		if initialOld[i] >= targetNew[i] {
			drainedOld[i] = max(drainedOld[i], max(0, targetNew[i]-config[i].MaxUnavailable-nextNew[i]))
		}
		if drainedOld[i] < currentOld[i] {
			needsDrain = true
		}
	}
	if !needsDrain {
		return nil
	}
	applyOrphanPrevention(drainedOld, nextNew, initialOld, targetNew, config)
	return &updateStep{Past: drainedOld, New: nextNew}
}

// computeNextStep is ComputeNextStep: the controller's next step from the rollout's state (nil
// when the rollout is complete or cannot move).
func computeNextStep(initialOld, currentOld, currentNew, targetNew []int, config []rollingUpdateConfig) *updateStep {
	if isComplete(currentOld, currentNew, targetNew) {
		return nil
	}
	totalSteps := computeTotalSteps(initialOld, targetNew, config)
	if totalSteps == 0 {
		return nil
	}
	if step := correctAbnormalState(currentOld, currentNew, initialOld); step != nil {
		return step
	}
	if isNewAtTarget(currentNew, targetNew) {
		return &updateStep{Past: make([]int, len(initialOld)), New: currentNew}
	}
	nextNew := computeNextNewReplicas(targetNew, currentNew, totalSteps)
	minOld := computeMinOld(initialOld, currentNew, targetNew, config)
	if step := tryScaleUp(currentOld, currentNew, nextNew, targetNew, config); step != nil {
		return step
	}
	if step := tryProportionalDrain(initialOld, currentOld, currentNew, targetNew, minOld, totalSteps, config); step != nil {
		return step
	}
	return tryForceDrain(currentOld, nextNew, initialOld, targetNew, config)
}

// computeAllSteps is ComputeAllSteps: the whole rollout, step by step, from initialOld groups of
// the old revision to target groups of the new one, every step's groups ready (the executor
// waits for the new revision to be stable, isRevisionStable, before each step). The first step
// is the state before the rollout.
func computeAllSteps(initialOld, target []int, config []rollingUpdateConfig) []updateStep {
	numRoles := len(initialOld)
	currentOld := make([]int, numRoles)
	copy(currentOld, initialOld)
	currentNew := make([]int, numRoles)
	maxReplicas := 0
	for i := range numRoles {
		maxReplicas = max(maxReplicas, initialOld[i], target[i])
	}
	maxSteps := maxReplicas*2 + 10
	initialPast := make([]int, numRoles)
	copy(initialPast, initialOld)
	steps := []updateStep{{Past: initialPast, New: make([]int, numRoles)}}
	for range maxSteps {
		next := computeNextStep(initialOld, currentOld, currentNew, target, config)
		if next == nil {
			break
		}
		steps = append(steps, *next)
		currentOld, currentNew = next.Past, next.New
	}
	return steps
}
