/**
 * A create or update that did part of its work (PartialFailure, userError.ts), answered as Pulumi's
 * "created, but failed to initialise": a gRPC error whose status details hold
 * pulumirpc.ErrorResourceInitFailed with the object's id, its outputs as they now are and the
 * inputs. The engine records the object in the stack with those outputs and the failure, and the
 * next `up` updates it. The message is the failure's one line (the reason the engine prints).
 */
import * as grpc from "@grpc/grpc-js";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { UserError, type PartialFailure } from "../userError";

export class InitFailed extends UserError {
  constructor(
    readonly failure: PartialFailure,
    /** The outputs, secrets wrapped as the schema marks them (properties.ts `toStruct`). */
    readonly properties: Struct,
    readonly inputs: Struct,
  ) {
    super(failure.message);
  }

  /** The gRPC status the engine reads the detail from (the `grpc-status-details-bin` trailer). */
  status(): Partial<grpc.StatusObject> {
    const detail = new ErrorResourceInitFailed()
      .setId(this.failure.id)
      .setProperties(this.properties)
      .setInputs(this.inputs)
      .setReasonsList(this.failure.reasons);
    const any = new Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new Status().setCode(grpc.status.UNKNOWN).setMessage(this.message).setDetailsList([any]);
    const metadata = new grpc.Metadata();
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
    return { code: grpc.status.UNKNOWN, details: this.message, metadata };
  }
}
