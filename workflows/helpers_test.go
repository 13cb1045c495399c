package workflows_test

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

type (
	activityInfo = activity.Info
	encodedValue = converter.EncodedValue
)

func convertPayload(can *workflow.ContinueAsNewError, into any) error {
	return converter.GetDefaultDataConverter().FromPayloads(can.Input, into)
}
