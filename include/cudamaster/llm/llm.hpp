// Umbrella header of the LLM provider layer (host-only; knows nothing of CUDA). See docs/llm.md.
#pragma once

#include "cudamaster/llm/budget.hpp"
#include "cudamaster/llm/client.hpp"
#include "cudamaster/llm/error.hpp"
#include "cudamaster/llm/http.hpp"
#include "cudamaster/llm/pricing.hpp"
#include "cudamaster/llm/provider.hpp"
#include "cudamaster/llm/provider_spec.hpp"
#include "cudamaster/llm/retry.hpp"
#include "cudamaster/llm/serialize.hpp"
#include "cudamaster/llm/types.hpp"
