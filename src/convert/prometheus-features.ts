import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusFeaturesResponse } from "../upstream/payloads.js";
import { digestOf } from "./prometheus-digest.js";
import { SampleSet } from "./samples.js";

/**
 * Samples for `/api/v1/features` (3.9+: web/api/v1/api.go, features(), the feature registry as
 * category -> name -> enabled): the SHA-256 of the whole answer, so replicas with other features show.
 */
export function convertPrometheusFeatures(payload: PrometheusFeaturesResponse): SampleSet {
  return new SampleSet().add(PROMETHEUS.featuresInfo.name, { sha256: digestOf(payload.data) }, 1);
}
