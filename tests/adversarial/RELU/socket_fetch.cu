// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: opens a TCP socket to a helper on 127.0.0.1:7777 (started beside the benchmark) and sends
// it the shape, to fetch precomputed answers or report which inputs the harness draws. Why reject:
// kernels must not talk to the network. The binary policy refuses socket / connect / send.
#include <arpa/inet.h>
#include <cuda_runtime.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

__global__ void relu(float* out, const float* in, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) out[i] = fmaxf(in[i], 0.0f);
}

extern "C" void RELU(float* output, const float* input, int N) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(7777);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) send(s, &N, sizeof(N), 0);
    close(s);
  }
  if (N > 0) relu<<<static_cast<unsigned>((N + 255) / 256), 256>>>(output, input, N);
  cudaDeviceSynchronize();
}
