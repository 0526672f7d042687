// tiny_model_run: the prompt's logits and N greedy tokens of a model, on one ggml device, through libllama.
//
// Built and run by tests/ggml/tiny_model.py against the pinned llama.cpp (the llama-cpp-python==0.3.36
// sdist); llama-simple does the same generation but prints neither logits nor token ids.
//
//   tiny_model_run -m MODEL -dev CANN0|none [-fa on|off|auto] [-n N] [-t THREADS] [-o LOGITS] [-p PROMPT]
//
// -dev none: the CPU backend alone (no other device is given to the model, so nothing is offloaded);
// -dev NAME: every layer and the output on that ggml device (n_gpu_layers = 999).
// Decodes the prompt in one batch with the logits of every position, then N tokens one by one, each the
// argmax of the last logits (never stopping at an end-of-generation token). LOGITS gets float32 rows:
// the prompt's n_prompt rows, then one row per decode step (the logits from which generated token i+1 was
// chosen; N - 1 rows). Prints one line of JSON on stdout: the token ids, the top-1/top-2 margin of every
// choice, and the timings.

#include "ggml-backend.h"
#include "llama.h"

#include <algorithm>
#include <chrono>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct choice {
    llama_token token;
    float       margin;  // top-1 minus top-2 logit
    float       top;
};

static choice argmax(const float * logits, int n_vocab) {
    int best = 0, second = -1;
    for (int i = 1; i < n_vocab; ++i) {
        if (logits[i] > logits[best]) {
            second = best;
            best   = i;
        } else if (second < 0 || logits[i] > logits[second]) {
            second = i;
        }
    }
    return { best, logits[best] - logits[second], logits[best] };
}

static void usage(const char * argv0) {
    fprintf(stderr, "usage: %s -m MODEL -dev CANN0|none [-fa on|off|auto] [-n N] [-t THREADS] [-o LOGITS] [-p PROMPT]\n",
            argv0);
}

static bool decode(llama_context * ctx, llama_batch & batch, const llama_token * tokens, int n, int pos0,
                   bool all_logits) {
    batch.n_tokens = n;
    for (int i = 0; i < n; ++i) {
        batch.token[i]     = tokens[i];
        batch.pos[i]       = pos0 + i;
        batch.n_seq_id[i]  = 1;
        batch.seq_id[i][0] = 0;
        batch.logits[i]    = all_logits || i == n - 1;
    }
    return llama_decode(ctx, batch) == 0;
}

int main(int argc, char ** argv) {
    std::setlocale(LC_NUMERIC, "C");
    std::string model_path, dev_name, fa = "off", logits_path;
    std::string prompt    = "Hello my name is";
    int         n_predict = 32;
    int         n_threads = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a    = argv[i];
        const bool  more = i + 1 < argc;
        if (a == "-m" && more) {
            model_path = argv[++i];
        } else if (a == "-dev" && more) {
            dev_name = argv[++i];
        } else if (a == "-fa" && more) {
            fa = argv[++i];
        } else if (a == "-n" && more) {
            n_predict = atoi(argv[++i]);
        } else if (a == "-t" && more) {
            n_threads = atoi(argv[++i]);
        } else if (a == "-o" && more) {
            logits_path = argv[++i];
        } else if (a == "-p" && more) {
            prompt = argv[++i];
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    if (model_path.empty() || dev_name.empty() || n_predict < 1 || (fa != "on" && fa != "off" && fa != "auto")) {
        usage(argv[0]);
        return 2;
    }

    llama_backend_init();

    std::vector<ggml_backend_dev_t> devices;
    llama_model_params              mparams = llama_model_default_params();
    if (dev_name == "none") {
        mparams.n_gpu_layers = 0;
    } else {
        ggml_backend_dev_t dev = ggml_backend_dev_by_name(dev_name.c_str());
        if (!dev) {
            fprintf(stderr, "no ggml device named %s; there are:", dev_name.c_str());
            for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
                fprintf(stderr, " %s", ggml_backend_dev_name(ggml_backend_dev_get(i)));
            }
            fprintf(stderr, "\n");
            return 2;
        }
        devices.push_back(dev);
        mparams.n_gpu_layers = 999;
    }
    devices.push_back(nullptr);
    mparams.devices = devices.data();

    const double  t_load0 = now_s();
    llama_model * model   = llama_model_load_from_file(model_path.c_str(), mparams);
    if (!model) {
        fprintf(stderr, "unable to load %s\n", model_path.c_str());
        return 1;
    }
    const double        t_load  = now_s() - t_load0;
    const llama_vocab * vocab   = llama_model_get_vocab(model);
    const int           n_vocab = llama_vocab_n_tokens(vocab);

    const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), prompt.size(), nullptr, 0, true, true);
    std::vector<llama_token> prompt_tokens(n_prompt);
    if (llama_tokenize(vocab, prompt.c_str(), prompt.size(), prompt_tokens.data(), n_prompt, true, true) < 0) {
        fprintf(stderr, "failed to tokenize the prompt\n");
        return 1;
    }

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx                = n_prompt + n_predict;
    cparams.n_batch              = n_prompt;
    cparams.n_ubatch             = n_prompt;
    cparams.flash_attn_type      = fa == "on"  ? LLAMA_FLASH_ATTN_TYPE_ENABLED :
                                   fa == "off" ? LLAMA_FLASH_ATTN_TYPE_DISABLED :
                                                 LLAMA_FLASH_ATTN_TYPE_AUTO;
    if (n_threads > 0) {
        cparams.n_threads       = n_threads;
        cparams.n_threads_batch = n_threads;
    }
    llama_context * ctx = llama_init_from_model(model, cparams);
    if (!ctx) {
        fprintf(stderr, "failed to create the llama_context\n");
        return 1;
    }

    FILE * out = nullptr;
    if (!logits_path.empty()) {
        out = fopen(logits_path.c_str(), "wb");
        if (!out) {
            fprintf(stderr, "cannot write %s\n", logits_path.c_str());
            return 1;
        }
    }

    llama_batch batch = llama_batch_init(std::max(n_prompt, 1), 0, 1);

    // the prompt, every position's logits
    const double t_prompt0 = now_s();
    if (!decode(ctx, batch, prompt_tokens.data(), n_prompt, 0, true)) {
        fprintf(stderr, "llama_decode failed on the prompt\n");
        return 1;
    }
    const float * last = nullptr;
    for (int i = 0; i < n_prompt; ++i) {
        const float * row = llama_get_logits_ith(ctx, i);
        if (out) {
            fwrite(row, sizeof(float), n_vocab, out);
        }
        last = row;
    }
    const double t_prompt = now_s() - t_prompt0;

    std::vector<choice> chosen;
    chosen.push_back(argmax(last, n_vocab));

    // n_predict - 1 more decode steps, one token each (the first token came from the prompt's logits)
    const double t_gen0 = now_s();
    for (int step = 1; step < n_predict; ++step) {
        llama_token tok = chosen.back().token;
        if (!decode(ctx, batch, &tok, 1, n_prompt + step - 1, false)) {
            fprintf(stderr, "llama_decode failed at step %d\n", step);
            return 1;
        }
        const float * row = llama_get_logits_ith(ctx, -1);
        if (out) {
            fwrite(row, sizeof(float), n_vocab, out);
        }
        chosen.push_back(argmax(row, n_vocab));
    }
    const double t_gen = now_s() - t_gen0;
    if (out) {
        fclose(out);
    }

    std::string json = "{\"n_vocab\": " + std::to_string(n_vocab) + ", \"prompt_tokens\": [";
    for (int i = 0; i < n_prompt; ++i) {
        json += (i ? ", " : "") + std::to_string(prompt_tokens[i]);
    }
    json += "], \"tokens\": [";
    for (size_t i = 0; i < chosen.size(); ++i) {
        json += (i ? ", " : "") + std::to_string(chosen[i].token);
    }
    json += "], \"margins\": [";
    char buf[64];
    for (size_t i = 0; i < chosen.size(); ++i) {
        snprintf(buf, sizeof(buf), "%s%.6g", i ? ", " : "", chosen[i].margin);
        json += buf;
    }
    json += "], \"top_logits\": [";
    for (size_t i = 0; i < chosen.size(); ++i) {
        snprintf(buf, sizeof(buf), "%s%.6g", i ? ", " : "", chosen[i].top);
        json += buf;
    }
    snprintf(buf, sizeof(buf), "%.6f", t_load);
    json += std::string("], \"load_s\": ") + buf;
    snprintf(buf, sizeof(buf), "%.6f", t_prompt);
    json += std::string(", \"prompt_s\": ") + buf;
    snprintf(buf, sizeof(buf), "%.6f", t_gen);
    json += std::string(", \"decode_s\": ") + buf;
    json += ", \"decode_steps\": " + std::to_string(n_predict - 1);
    json += ", \"flash_attn\": \"" + fa + "\", \"device\": \"" + dev_name + "\"}";
    printf("%s\n", json.c_str());
    fflush(stdout);

    llama_batch_free(batch);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
