/**
 * @file aclnnop/aclnn_util.h
 * @brief Export macro shared by the per-operator headers.
 */
#ifndef ACLNNOP_ACLNN_UTIL_H_
#define ACLNNOP_ACLNN_UTIL_H_

#if defined(_WIN32)
#define ACLNN_API
#else
#define ACLNN_API __attribute__((visibility("default")))
#endif

#endif /* ACLNNOP_ACLNN_UTIL_H_ */
